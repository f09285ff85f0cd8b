#include "sim_child.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/engine/results_writer.hpp"

namespace geotrain::test {

namespace {

nlohmann::json run(const Scenario& scenario, const Program& program,
                   const engine::SimulationOptions& options, const engine::ComputeSeconds& compute,
                   const std::string& out_dir) {
  try {
    const auto result = engine::simulate(scenario, program, options, compute);
    if (!out_dir.empty()) engine::write_results(out_dir, scenario, program, result, {});
    nlohmann::json starts = nlohmann::json::array(), ends = nlohmann::json::array();
    for (int r = 0; r < program.world_size; ++r) {
      nlohmann::json s = nlohmann::json::array(), e = nlohmann::json::array();
      for (std::size_t i = 0; i < result.records.ops(r); ++i) {
        s.push_back(result.records.at(r, 0, static_cast<int>(i)).start_s);
        e.push_back(result.records.at(r, 0, static_cast<int>(i)).end_s);
      }
      starts.push_back(s), ends.push_back(e);
    }
    return {{"ok", true}, {"summary", engine::summary_json(program, result)}, {"simulated_ranks", result.simulated_ranks}, {"start", starts}, {"end", ends}};
  } catch (const InputError& e) {
    std::string all;
    for (const auto& p : e.problems()) all += p + "\n";
    return {{"ok", false}, {"input_error", true}, {"error", all}};
  } catch (const std::exception& e) {
    return {{"ok", false}, {"input_error", false}, {"error", e.what()}};
  }
}

}  // namespace

ChildRun simulate_in_child(const Scenario& scenario, const Program& program,
                           const engine::SimulationOptions& options,
                           const engine::ComputeSeconds& compute, const std::string& out_dir) {
  char path[] = "/tmp/geotrain-sim-child-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("mkstemp failed");
  close(fd);
  const pid_t pid = fork();
  if (pid == 0) {
    // Catch's signal handlers would report a crash of the child as a failure of the parent's test.
    for (int sig : {SIGABRT, SIGSEGV, SIGFPE, SIGILL, SIGBUS}) std::signal(sig, SIG_DFL);
    const nlohmann::json j = run(scenario, program, options, compute, out_dir);
    std::ofstream(path) << j.dump();
    std::_Exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  ChildRun r;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.str().empty()) {
    r.error = "child simulation crashed (status " + std::to_string(status) + ")";
    return r;
  }
  const auto j = nlohmann::json::parse(text.str());
  r.ok = j.at("ok").get<bool>();
  if (!r.ok) {
    r.error = j.at("error").get<std::string>();
    r.input_error = j.at("input_error").get<bool>();
    return r;
  }
  r.summary = j.at("summary");
  r.simulated_ranks = j.at("simulated_ranks").get<int>();
  r.start_s = j.at("start").get<std::vector<std::vector<double>>>();
  r.end_s = j.at("end").get<std::vector<std::vector<double>>>();
  return r;
}

engine::ComputeSeconds tflop_seconds() {
  return [](const ComputeOp& op, int, const ComputeSite&) { return op.flops * 1e-12; };
}

}  // namespace geotrain::test
