#include "emu/net/netns_util.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "emu/net/process_identity.hpp"
#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace fs = std::filesystem;

namespace {

const char* kNetnsDir = "/run/netns";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<std::string> list_namespaces(const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(kNetnsDir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool namespace_exists(const std::string& name) {
  std::error_code ec;
  return fs::exists(fs::path(kNetnsDir) / name, ec);
}

std::vector<pid_t> processes_of(const std::vector<std::string>& namespaces, const std::string& tag_prefix) {
  std::set<ino_t> inodes;
  for (const auto& ns : namespaces) {
    struct stat st{};
    if (stat((std::string(kNetnsDir) + "/" + ns).c_str(), &st) == 0) inodes.insert(st.st_ino);
  }
  std::vector<pid_t> out;
  const pid_t self = getpid();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (pid == self) continue;
    struct stat st{};
    bool match = stat((entry.path() / "ns/net").c_str(), &st) == 0 && inodes.count(st.st_ino) > 0;
    if (!match && !tag_prefix.empty()) {
      const std::string cmdline = slurp((entry.path() / "cmdline").string());
      match = cmdline.find(std::string("--tag") + '\0' + tag_prefix) != std::string::npos;
    }
    if (match) out.push_back(pid);
  }
  return out;
}

bool process_alive(pid_t pid) {
  if (pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM)) return false;
  // A zombie (exited, not yet reaped by its parent, often init) holds nothing any more.
  return process_state(pid) != 'Z';
}

int stop_processes(const std::vector<pid_t>& pids, double grace_s) {
  int signalled = 0;
  for (pid_t p : pids) signalled += kill(p, SIGTERM) == 0 ? 1 : 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace_s);
  auto any_alive = [&] {
    return std::any_of(pids.begin(), pids.end(), [](pid_t p) {
      // A zombie child of ours counts as gone; reap it if it is ours.
      waitpid(p, nullptr, WNOHANG);
      return process_alive(p);
    });
  };
  while (any_alive() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  for (pid_t p : pids)
    if (process_alive(p)) kill(p, SIGKILL);
  return signalled;
}

NetnsGuard::NetnsGuard(const std::string& name) {
  original_ = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
  const std::string path = std::string(kNetnsDir) + "/" + name;
  const int target = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (original_ < 0 || target < 0) {
    const int e = errno;
    if (original_ >= 0) close(original_);
    throw SystemError("open " + path, e, std::strerror(e));
  }
  const int rc = setns(target, CLONE_NEWNET);
  const int e = errno;
  close(target);
  if (rc != 0) {
    close(original_);
    throw SystemError("setns " + path, e, std::strerror(e));
  }
}

NetnsGuard::~NetnsGuard() {
  setns(original_, CLONE_NEWNET);
  close(original_);
}

std::string read_file_in(const std::string& netns, const std::string& path) {
  // /proc/net follows the namespace of the reading thread (through /proc/thread-self).
  std::string text;
  std::exception_ptr failure;
  std::thread t([&] {
    try {
      NetnsGuard guard(netns);
      std::string p = path;
      if (p.rfind("/proc/net/", 0) == 0) p = "/proc/thread-self/net/" + p.substr(10);
      text = slurp(p);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  t.join();
  if (failure) std::rethrow_exception(failure);
  return text;
}

}  // namespace geotrain::emu
