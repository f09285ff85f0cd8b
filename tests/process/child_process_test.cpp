// ChildProcess with /bin/sh as the child: streams to files, extra fds, environment, groups,
// waits and stops. Bounds on time only prove boundedness (tests/README.md).
#include "sim/process/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace child_process_test {

using namespace geotrain;
using namespace geotrain::process;

namespace {

std::string test_dir(const std::string& name) {
  const auto d = test::process_temp_path("geotrain-process-" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ChildSpec sh(const std::string& script) {
  ChildSpec s;
  s.argv = {"/bin/sh", "-c", script};
  return s;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("child process: exit codes and signals come back as the shell reports them",
          "[process]") {
  CHECK(ChildProcess::start(sh("exit 0")).wait() == 0);
  CHECK(ChildProcess::start(sh("exit 3")).wait() == 3);
  CHECK(ChildProcess::start(sh("kill -9 $$")).wait() == 128 + 9);
}

TEST_CASE("child process: a program that does not exist exits 127 and says so when asked",
          "[process]") {
  const auto dir = test_dir("missing");
  ChildSpec s;
  s.argv = {dir + "/no-such-program", "x"};
  s.err = Stream::file(dir + "/err");
  s.report_setup_errors = true;
  CHECK(ChildProcess::start(s).wait() == kExitCannotExec);
  CHECK(read(dir + "/err") ==
        "cannot run " + dir + "/no-such-program: No such file or directory\n");
  // Without search_path a bare name is not looked up in PATH.
  ChildSpec bare;
  bare.argv = {"sh", "-c", "exit 0"};
  bare.err = Stream::null();
  CHECK(ChildProcess::start(bare).wait() == kExitCannotExec);
  bare.search_path = true;
  CHECK(ChildProcess::start(bare).wait() == 0);
}

TEST_CASE("child process: stdout and stderr go to files, truncated or appended, or together",
          "[process]") {
  const auto dir = test_dir("files");
  ChildSpec s = sh("echo out; echo err >&2");
  s.out = Stream::file(dir + "/out");
  s.err = Stream::file(dir + "/err");
  CHECK(ChildProcess::start(s).wait() == 0);
  CHECK(ChildProcess::start(s).wait() == 0);
  CHECK(read(dir + "/out") == "out\n");
  CHECK(read(dir + "/err") == "err\n");
  ChildSpec both = sh("echo one; echo two >&2");
  both.out = Stream::file(dir + "/log", true);
  both.err = Stream::like_stdout();
  CHECK(ChildProcess::start(both).wait() == 0);
  CHECK(ChildProcess::start(both).wait() == 0);
  CHECK(read(dir + "/log") == "one\ntwo\none\ntwo\n");
}

TEST_CASE("child process: an output file that cannot be opened fails the start only if required",
          "[process]") {
  const auto dir = test_dir("unopenable");
  ChildSpec s = sh("exit 0");
  s.out = Stream::file(dir + "/missing-dir/out");
  CHECK(ChildProcess::start(s).wait() == kExitCannotOpenOutput);
  s.out = Stream::file(dir + "/missing-dir/out", false, false);
  s.err = Stream::like_stdout();
  CHECK(ChildProcess::start(s).wait() == 0);
}

TEST_CASE("child process: extra fds arrive as 3, 4 and the environment gains the additions",
          "[process]") {
  const auto dir = test_dir("fds");
  int p[2], q[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  REQUIRE(::pipe2(q, O_CLOEXEC) == 0);
  ChildSpec s =
      sh("echo \"$GEOTRAIN_TEST_VALUE\" >&3; echo second >&4; echo \"$HOME\" > " + dir + "/home");
  s.env = {"GEOTRAIN_TEST_VALUE=ready"};
  s.pass_fds = {p[1], q[1]};
  ChildProcess c = ChildProcess::start(s);
  ::close(p[1]);
  ::close(q[1]);
  char buf[16] = {}, buf2[16] = {};
  CHECK(::read(p[0], buf, sizeof buf - 1) == 6);
  CHECK(::read(q[0], buf2, sizeof buf2 - 1) == 7);
  ::close(p[0]);
  ::close(q[0]);
  CHECK(std::string(buf) == "ready\n");
  CHECK(std::string(buf2) == "second\n");
  CHECK(c.wait() == 0);
  const char* home = std::getenv("HOME");
  CHECK(read(dir + "/home") == std::string(home ? home : "") + "\n");  // the rest is kept
}

TEST_CASE("child process: close_other_fds leaves only the streams and the passed fds",
          "[process]") {
  const auto dir = test_dir("close");
  // No close-on-exec: a child inherits it unless it is closed for it.
  const int null = ::open("/dev/null", O_RDONLY);
  const int leaked = ::fcntl(null, F_DUPFD, 20);
  ::close(null);
  REQUIRE((leaked >= 20 && leaked < 64));
  int p[2];
  REQUIRE(::pipe2(p, O_CLOEXEC) == 0);
  ChildSpec s;
  s.program = "/bin/sh";  // argv[0] is only a name
  s.argv = {
      "guard-name", "-c",
      "echo $0; for f in $(seq 0 63); do [ -e /proc/$$/fd/$f ] && printf '%s ' $f; done; true"};
  s.out = Stream::file(dir + "/out");
  s.pass_fds = {p[1]};
  s.close_other_fds = true;
  CHECK(ChildProcess::start(s).wait() == 0);
  CHECK(read(dir + "/out") == "guard-name\n0 1 2 3 ");
  s.close_other_fds = false;
  CHECK(ChildProcess::start(s).wait() == 0);
  CHECK(read(dir + "/out").find(" " + std::to_string(leaked) + " ") != std::string::npos);
  ::close(leaked);
  ::close(p[0]);
  ::close(p[1]);
}

TEST_CASE("child process: wait_for gives up at its limit, stop ends even a stopped child",
          "[process]") {
  ChildProcess c = ChildProcess::start(sh("exec sleep 30"));
  CHECK_FALSE(c.wait_for(0.05).has_value());
  CHECK(c.running());
  c.signal(SIGSTOP);
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(c.stop(5.0) == 128 + SIGTERM);  // SIGCONT let it act on SIGTERM
  CHECK(seconds_since(t0) < 20);        // bounded: the sleep is 30 s
  CHECK_FALSE(c.running());
}

TEST_CASE("child process: a child that ignores SIGTERM is killed after the grace", "[process]") {
  // The shell blocks in its `read` builtin (stdin is a pipe nobody writes): no grandchild.
  ChildSpec s = sh("trap '' TERM; echo ready; read x");
  s.in = Stream::pipe();
  s.out = Stream::pipe();
  ChildProcess c = ChildProcess::start(s);
  char buf[8] = {};
  REQUIRE(::read(c.fd(1), buf, 6) == 6);  // the trap is set
  CHECK(c.stop(0.2) == 128 + SIGKILL);
  CHECK_FALSE(c.running());
}

TEST_CASE("child process: destroying a running child kills its group and reaps it", "[process]") {
  pid_t pid = -1;
  {
    ChildSpec s = sh("sleep 30");
    s.group = Group::own_group;
    ChildProcess c = ChildProcess::start(s);
    pid = c.pid();
    CHECK(::getpgid(pid) == pid);
  }
  CHECK(::kill(pid, 0) != 0);  // not even a zombie: it was reaped
}

TEST_CASE("child process: release hands the child over without killing it", "[process]") {
  pid_t pid = -1;
  {
    ChildProcess c = ChildProcess::start(sh("exec sleep 30"));
    pid = c.release();
  }
  CHECK(::kill(pid, 0) == 0);
  ::kill(pid, SIGKILL);
  int status = 0;
  CHECK(::waitpid(pid, &status, 0) == pid);
}

}  // namespace child_process_test
