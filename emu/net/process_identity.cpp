#include "emu/net/process_identity.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

struct Stat {
  bool found = false;
  char state = '?';
  unsigned long long start_ticks = 0;
};

Stat read_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so count from the last ')'.
  const auto paren = text.rfind(')');
  Stat s;
  if (paren == std::string::npos) return s;
  std::istringstream fields(text.substr(paren + 1));
  std::string field;
  fields >> s.state;
  // Fields 4..21 lie between the state (3) and the start time (22).
  for (int i = 4; i <= 21 && fields >> field; ++i) {
  }
  s.found = static_cast<bool>(fields >> s.start_ticks);
  return s;
}

unsigned long long pid_namespace_of(const std::string& proc_entry) {
  struct stat st{};
  return stat((proc_entry + "/ns/pid").c_str(), &st) == 0 ? static_cast<unsigned long long>(st.st_ino) : 0;
}

}  // namespace

ProcessIdentity this_process() {
  return {getpid(), read_stat(getpid()).start_ticks, pid_namespace_of("/proc/self")};
}

bool identity_alive(const ProcessIdentity& process) {
  if (process.pid_namespace != 0 && process.pid_namespace != pid_namespace_of("/proc/self")) return true;
  const Stat s = read_stat(process.pid);
  return s.found && s.state != 'Z' && s.start_ticks == process.start_ticks;
}

char process_state(pid_t pid) { return read_stat(pid).state; }

std::string format_identity(const ProcessIdentity& p) {
  return fmt::format("{}:{}:{}", p.pid, p.start_ticks, p.pid_namespace);
}

ProcessIdentity parse_identity(const std::string& text) {
  ProcessIdentity p;
  long long pid = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lld:%llu:%llu%c", &pid, &p.start_ticks, &p.pid_namespace, &tail) != 3 || pid <= 0)
    throw InputError("--owner = '" + text + "': expected <pid>:<start ticks>:<pid namespace inode>");
  p.pid = static_cast<pid_t>(pid);
  return p;
}

}  // namespace geotrain::emu
