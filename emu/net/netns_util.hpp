#pragma once
// Network namespaces as the host sees them: names under /run/netns, the processes inside, and
// entering one from a thread (setns changes only the calling thread, so the link test runs a
// client in one namespace and a server in another from the same process).
#include <sys/types.h>

#include <string>
#include <vector>

namespace geotrain::emu {

// Names in /run/netns that start with prefix, sorted.
std::vector<std::string> list_namespaces(const std::string& prefix);
bool namespace_exists(const std::string& name);

// Processes inside any of the namespaces, plus processes whose command line carries
// "--tag <prefix>..." (delayers whose namespace is already gone).
std::vector<pid_t> processes_of(const std::vector<std::string>& namespaces, const std::string& tag_prefix);

// SIGTERM, up to grace_s to exit, then SIGKILL. Returns how many were signalled.
int stop_processes(const std::vector<pid_t>& pids, double grace_s);

bool process_alive(pid_t pid);

// Moves the calling thread into a named namespace and back on destruction.
class NetnsGuard {
 public:
  explicit NetnsGuard(const std::string& name);
  ~NetnsGuard();
  NetnsGuard(const NetnsGuard&) = delete;
  NetnsGuard& operator=(const NetnsGuard&) = delete;

 private:
  int original_ = -1;
};

// Reads a file as seen from inside a namespace (e.g. /proc/net/netfilter/nfnetlink_queue).
std::string read_file_in(const std::string& netns, const std::string& path);

}  // namespace geotrain::emu
