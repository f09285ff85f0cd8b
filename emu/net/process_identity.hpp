#pragma once
// A process as a record on disk can name it for as long as it lives: its pid, the time it
// started (so a pid reused after it died is not taken for it) and its pid namespace (a pid means
// nothing in another one, so a record written from a container is never judged from outside).
#include <sys/types.h>

#include <string>

namespace geotrain::emu {

struct ProcessIdentity {
  pid_t pid = 0;
  unsigned long long start_ticks = 0;    // /proc/<pid>/stat field 22: clock ticks after boot
  unsigned long long pid_namespace = 0;  // inode of /proc/<pid>/ns/pid

  bool operator==(const ProcessIdentity&) const = default;
};

ProcessIdentity this_process();

// Whether the process still runs: same pid, same start time, not a zombie. A process of another
// pid namespace than ours counts as alive (we cannot tell).
bool identity_alive(const ProcessIdentity& process);

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', ...), '?' when it cannot be read.
char process_state(pid_t pid);

// "pid:start_ticks:pid_namespace", as the guardian's command line carries the owner.
std::string format_identity(const ProcessIdentity& process);
ProcessIdentity parse_identity(const std::string& text);  // throws InputError

}  // namespace geotrain::emu
