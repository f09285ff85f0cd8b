// `geotrain real run` over ssh on the rig (label real, root, sshd; skipped with a warning
// otherwise): three namespaced hosts run scenarios/emu/diloco_timeout_3.yaml. A run writes the
// result files and `geotrain compare` reads them; a worker killed with SIGKILL fails the run
// naming host and rank and leaves no worker; a controller killed with SIGKILL leaves no worker.
// No timing is asserted beyond generous bounds: the machine may be busy.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/process/child_process.hpp"
#include "tests/real/rig_support.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace real_run_rig_test {

namespace fs = std::filesystem;
using namespace geotrain;

namespace {

using Clock = std::chrono::steady_clock;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

template <class Pred>
bool eventually(Pred pred, double seconds) {
  const auto end = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return pred();
}

nlohmann::json workers_of(const test::SshRig& rig, std::size_t host) {
  const std::string text = slurp(rig.workdir(host) + "/.geotrain/workers.json");
  try {
    return text.empty() ? nlohmann::json::array() : nlohmann::json::parse(text);
  } catch (const std::exception&) {
    return nlohmann::json::array();  // caught between two writes: ask again
  }
}

// Processes in the host's namespace whose command line names geotrain-worker.
std::vector<int> workers_in_namespace(const test::SshRig& rig, std::size_t host) {
  const auto r = test::sh("ip netns pids " + rig.host_netns(host));
  std::vector<int> out;
  std::istringstream in(r.out);
  for (int pid; in >> pid;) {
    std::string cmd = slurp(fmt::format("/proc/{}/cmdline", pid));
    if (cmd.find("geotrain-worker") != std::string::npos && cmd.find("geotrain-real-wrapper") == std::string::npos)
      out.push_back(pid);
  }
  return out;
}

bool no_worker_left(const test::SshRig& rig) {
  for (std::size_t h = 0; h < rig.size(); ++h)
    if (!workers_in_namespace(rig, h).empty() || !workers_of(rig, h).empty()) return false;
  return true;
}

// `geotrain real run` in the controller namespace, as a child with its output in files.
process::ChildProcess start_run(const test::SshRig& rig, int steps, const std::string& log) {
  process::ChildSpec c;
  c.argv = rig.controller_argv({GEOTRAIN_BINARY, "real", "run", test::diloco3(), "--hosts", rig.hosts_file(),
                                "--steps", std::to_string(steps), "--results", rig.dir() + "/results"});
  c.search_path = true;
  c.out = process::Stream::file(log + ".out");
  c.err = process::Stream::file(log + ".err");
  return process::ChildProcess::start(c);
}

bool all_recorded(const test::SshRig& rig) {
  for (std::size_t h = 0; h < rig.size(); ++h)
    if (workers_of(rig, h).size() != 1) return false;
  return true;
}

}  // namespace

TEST_CASE("real run on the ssh rig writes a run directory that compare reads", "[real][rig][run]") {
  if (!test::rig_ready()) return;
  test::SshRig rig(test::three_hosts(), test::build_dir());
  const std::string log = rig.dir() + "/run";
  auto run = start_run(rig, 4, log);
  const auto code = run.wait_for(600);
  const std::string out = slurp(log + ".out"), err = slurp(log + ".err");
  INFO(err);
  REQUIRE(code.has_value());
  REQUIRE(*code == 0);
  // stdout: the summary line, then the run directory.
  const auto lines_end = out.find_last_not_of('\n');
  const std::string dir = out.substr(out.rfind('\n', lines_end) + 1, lines_end - out.rfind('\n', lines_end));
  CHECK(out.rfind("real run: median iteration ", 0) == 0);
  CHECK(dir.find(rig.dir() + "/results/diloco_timeout_3/real/") == 0);
  for (const char* f : {"summary.json", "ops.csv", "iterations.csv", "trace.json", "manifest.json", "job.json",
                        "compute_profile.json", "ranks/0/ops.csv", "ranks/2/iterations.csv"})
    CHECK(fs::exists(dir + "/" + f));
  const auto summary = nlohmann::json::parse(slurp(dir + "/summary.json"));
  CHECK(summary["format"] == "geotrain-real-summary");
  CHECK(summary["iterations"] == 4);
  const auto manifest = nlohmann::json::parse(slurp(dir + "/manifest.json"));
  CHECK(manifest["executor"] == "real");
  CHECK(manifest["status"] == "ok");
  CHECK(manifest["backend"] == "gloo");
  CHECK(manifest["hosts"].size() == 3);
  CHECK(manifest["worker_timeout_s"].get<double>() >= 60);
  CHECK(err.find("started 3 workers") != std::string::npos);
  CHECK(no_worker_left(rig));

  // compare on the real run, unchanged: simulate beside it, error columns printed.
  const auto cmp = test::sh(fmt::format("cd '{}' && '{}' compare {} --measured '{}' --out '{}/compare' 2>&1",
                                        GEOTRAIN_SOURCE_DIR, GEOTRAIN_BINARY, test::diloco3(), dir, rig.dir()));
  INFO(cmp.out);
  CHECK(cmp.status == 0);
  CHECK(cmp.out.find("measured (real)") != std::string::npos);
  CHECK(cmp.out.find("error") != std::string::npos);
  CHECK(cmp.out.find("flow") != std::string::npos);
  WARN("compare on a real rig run:\n" << cmp.out);
}

TEST_CASE("real run on the ssh rig: a worker killed with SIGKILL fails the run naming host and rank",
          "[real][rig][run]") {
  if (!test::rig_ready()) return;
  test::SshRig rig(test::three_hosts(), test::build_dir());
  const std::string log = rig.dir() + "/kill";
  auto run = start_run(rig, 100000, log);
  REQUIRE(eventually([&] { return all_recorded(rig); }, 120));
  std::this_thread::sleep_for(std::chrono::seconds(3));  // into the run (joining, training)
  const auto victim = workers_of(rig, 2)[0];
  const int rank = victim["rank"].get<int>(), pid = victim["pid"].get<int>();
  const auto t0 = Clock::now();
  REQUIRE(test::sh(fmt::format("ip netns exec {} kill -9 {}", rig.host_netns(2), pid)).status == 0);
  const auto code = run.wait_for(120);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::string err = slurp(log + ".err");
  INFO(err);
  REQUIRE(code.has_value());
  CHECK(*code == 1);
  CHECK(took < 60);
  CHECK(err.find(fmt::format("rank {} on host ns-london failed: killed by signal 9", rank)) != std::string::npos);
  CHECK(eventually([&] { return no_worker_left(rig); }, 20));
  // The run directory records the failure.
  bool found = false;
  for (const auto& e : fs::directory_iterator(rig.dir() + "/results/diloco_timeout_3/real")) {
    const auto m = nlohmann::json::parse(slurp(e.path().string() + "/manifest.json"));
    found = found || (m["status"] == "failed" && m["failure"].get<std::string>().find("ns-london") != std::string::npos);
  }
  CHECK(found);
}

TEST_CASE("real run on the ssh rig: a controller killed with SIGKILL leaves no worker on any host", "[real][rig][run]") {
  if (!test::rig_ready()) return;
  test::SshRig rig(test::three_hosts(), test::build_dir());
  const std::string log = rig.dir() + "/ctl";
  auto run = start_run(rig, 100000, log);
  REQUIRE(eventually([&] { return all_recorded(rig); }, 120));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  std::vector<int> pids;
  for (std::size_t h = 0; h < rig.size(); ++h) pids.push_back(workers_of(rig, h)[0]["pid"].get<int>());
  run.signal(SIGKILL);
  REQUIRE(run.wait_for(10).has_value());
  INFO(slurp(log + ".err"));
  CHECK(eventually([&] { return no_worker_left(rig); }, 20));
  for (std::size_t h = 0; h < rig.size(); ++h) {
    INFO(rig.workdir(h));
    CHECK(workers_of(rig, h) == nlohmann::json::array());
    CHECK(workers_in_namespace(rig, h).empty());
  }
  for (int pid : pids) {
    INFO(pid);
    CHECK((::kill(pid, 0) != 0 || slurp(fmt::format("/proc/{}/stat", pid)).find(") Z") != std::string::npos));
  }
}

TEST_CASE("real apply then run then compare then down on the ssh rig with shaped hosts", "[real][rig][run]") {
  if (!test::rig_ready()) return;
  test::SshRig rig(test::three_hosts(), test::build_dir());
  const std::string bin = GEOTRAIN_BINARY;
  const auto apply = test::sh(rig.controller_shell(bin + " real apply " + test::diloco3() + " --hosts " +
                                                   rig.hosts_file() + " --measure no 2>&1"));
  INFO(apply.out);
  REQUIRE(apply.status == 0);
  const std::string log = rig.dir() + "/shaped";
  auto run = start_run(rig, 4, log);
  const auto code = run.wait_for(600);
  const std::string out = slurp(log + ".out");
  INFO(slurp(log + ".err"));
  CHECK((code.has_value() && *code == 0));
  const auto lines_end = out.find_last_not_of('\n');
  const std::string dir = out.substr(out.rfind('\n', lines_end) + 1, lines_end - out.rfind('\n', lines_end));
  const auto cmp = test::sh(fmt::format("cd '{}' && '{}' compare {} --measured '{}' --out '{}/compare' 2>&1",
                                        GEOTRAIN_SOURCE_DIR, GEOTRAIN_BINARY, test::diloco3(), dir, rig.dir()));
  INFO(cmp.out);
  CHECK(cmp.status == 0);
  CHECK(cmp.out.find("measured (real)") != std::string::npos);
  WARN("compare on a shaped real rig run:\n" << cmp.out);
  const auto down = test::sh(rig.controller_shell(bin + " real down --hosts " + rig.hosts_file() + " 2>&1"));
  INFO(down.out);
  CHECK(down.status == 0);
  CHECK(no_worker_left(rig));
}

}  // namespace real_run_rig_test
