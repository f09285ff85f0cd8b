// run(): capture, stdin, streaming lines, timeouts that kill the whole group, and run_checked's
// errors. /bin/sh is the child; time bounds only prove boundedness (tests/README.md).
#include "sim/process/run.hpp"

#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace run_test {

using namespace geotrain;
using namespace geotrain::process;

namespace {

ChildSpec sh(const std::string& script) {
  ChildSpec s;
  s.argv = {"/bin/sh", "-c", script};
  return s;
}

// Whether pid still runs: gone, or a zombie nobody reaped yet (an orphan's reaper may be slow).
bool running(pid_t pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

}  // namespace

TEST_CASE("run: stdout, stderr and the status are captured apart", "[process]") {
  const RunResult r = run(sh("echo out; echo err >&2; exit 4"));
  CHECK(r.status == 4);
  CHECK(r.out == "out\n");
  CHECK(r.err == "err\n");
}

TEST_CASE("run: stdin is fed, also more than a pipe holds while output flows back", "[process]") {
  RunOptions o;
  o.stdin_text = std::string(1 << 20, 'x') + "\n";
  const RunResult r = run(sh("wc -c; cat /dev/null"), o);
  CHECK(r.status == 0);
  CHECK(r.out.find(std::to_string((1 << 20) + 1)) != std::string::npos);
  RunOptions echo;
  echo.stdin_text = "a line\n";
  CHECK(run(sh("cat"), echo).out == "a line\n");
}

TEST_CASE("run: lines are streamed as they arrive, the last one without its newline too",
          "[process]") {
  std::vector<std::string> out, err;
  RunOptions o;
  o.on_stdout_line = [&](const std::string& l) { out.push_back(l); };
  o.on_stderr_line = [&](const std::string& l) { err.push_back(l); };
  const RunResult r = run(sh("echo one; echo two >&2; printf 'three'"), o);
  CHECK(out == std::vector<std::string>{"one", "three"});
  CHECK(err == std::vector<std::string>{"two"});
  CHECK(r.out == "one\nthree");  // captured as well
}

TEST_CASE("run: a program that does not exist is a clear error", "[process]") {
  ChildSpec s;
  s.argv = {"geotrain-no-such-program", "--flag"};
  s.search_path = true;
  s.report_setup_errors = true;
  const RunResult r = run(s);
  CHECK(r.status == 127);
  CHECK(r.err == "cannot run geotrain-no-such-program: No such file or directory\n");
  try {
    run_checked(s);
    FAIL("no exception");
  } catch (const SystemError& e) {
    CHECK(e.command() == "geotrain-no-such-program --flag");
    CHECK(e.status() == 127);
    CHECK(std::string(e.what()) ==
          "command failed (status 127): geotrain-no-such-program --flag: cannot run "
          "geotrain-no-such-program: No such file or directory");
  }
}

TEST_CASE("run_checked: names the command as shown and trims its stderr", "[process]") {
  CHECK(run_checked(sh("echo fine")).out == "fine\n");
  try {
    run_checked(sh("echo 'bad thing' >&2; exit 2"), {}, "tc batch");
    FAIL("no exception");
  } catch (const SystemError& e) {
    CHECK(std::string(e.what()) == "command failed (status 2): tc batch: bad thing");
  }
}

TEST_CASE("run: the timeout kills the child's whole group and throws TimeoutError", "[process]") {
  ChildSpec s = sh("sleep 30 & echo $!; sleep 30");
  s.group = Group::own_group;
  pid_t grandchild = -1;
  RunOptions o;
  o.timeout_s = 2;
  o.on_stdout_line = [&](const std::string& l) { grandchild = std::stoi(l); };
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run(s, o);
    FAIL("no timeout");
  } catch (const TimeoutError& e) {
    CHECK(std::string(e.what()) ==
          "timed out after 2.0 s waiting for /bin/sh -c sleep 30 & echo $!; sleep 30");
  }
  // Bounded, not fast: both sleeps last 30 s, so ending well before proves they were killed.
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < 20);
  REQUIRE(grandchild > 0);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (running(grandchild) && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK_FALSE(running(grandchild));
}

TEST_CASE("run: a child that closes its outputs and runs on still meets the timeout", "[process]") {
  ChildSpec s = sh("exec >&- 2>&-; sleep 30");
  s.group = Group::own_group;
  RunOptions o;
  o.timeout_s = 0.3;
  CHECK_THROWS_AS(run(s, o), TimeoutError);
}

}  // namespace run_test
