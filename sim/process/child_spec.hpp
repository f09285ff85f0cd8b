#pragma once
// What a child process is started with: its argv and how it is set up between fork and exec
// (group or session, death signal, network namespace, streams, extra fds, environment). One
// description serves every place geotrain starts a child (apps/, emu/, later real/), so the
// async-signal-safe setup between fork and exec is written once (child_exec.cpp).
#include <string>
#include <vector>

namespace geotrain::process {

// Exit codes of a child that failed before its program ran. 127 is the shell's "cannot
// execute"; the others are ours, so a supervisor can say which step failed (exit_status.hpp).
inline constexpr int kExitCannotOpenOutput = 124;
inline constexpr int kExitCannotEnterNetns = 125;
inline constexpr int kExitParentGone = 126;
inline constexpr int kExitCannotExec = 127;

// Where one standard stream of the child goes.
struct Stream {
  enum class Kind { inherit, null, pipe, file, like_stdout };
  Kind kind = Kind::inherit;
  std::string path;     // Kind::file
  bool append = false;  // Kind::file: append instead of truncating
  // Kind::file / null: a file that cannot be opened makes the child exit kExitCannotOpenOutput;
  // when false the stream stays inherited instead (a log is a convenience, not a precondition).
  bool required = true;

  static Stream inherit() { return {}; }
  static Stream null() { return {Kind::null, "", false, false}; }
  static Stream pipe() { return {Kind::pipe, "", false, true}; }
  static Stream file(std::string path, bool append = false, bool required = true) {
    return {Kind::file, std::move(path), append, required};
  }
  // stderr only: 2>&1 after stdout's redirection; when stdout's optional file could not be
  // opened, both stay inherited (the two streams never part).
  static Stream like_stdout() { return {Kind::like_stdout, "", false, true}; }
};

enum class Group {
  inherit,      // our process group: a Ctrl-C in the terminal reaches the child too
  own_group,    // setpgid(0, 0): Ctrl-C reaches us only, and the group can be killed at once
  own_session,  // setsid(): a daemon, detached from our terminal
};

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0] is the program unless `program` is set
  std::string program;            // what to execute when argv[0] is only its name ("" = argv[0])
  bool search_path = false;       // look the program up in PATH (execvp) instead of taking a path
  std::vector<std::string> env;   // "NAME=value" added to (or replacing in) our environment
  std::string netns;              // "" = ours; else /run/netns/<netns> is entered before exec
  Group group = Group::inherit;
  // PR_SET_PDEATHSIG SIGKILL: the child dies with us, even after a kill -9 of geotrain, so no
  // child outlives the process that would stop it (and the cleanup that expects it gone).
  bool die_with_parent = false;
  Stream in, out, err;
  std::vector<int> pass_fds;  // our fds, seen by the child as 3, 4, ... (e.g. a ready pipe)
  // Close every fd above the passed ones before exec, also those without close-on-exec: a
  // long-lived child (a guardian) must not keep a pipe of ours open, or its reader never sees EOF.
  bool close_other_fds = false;
  // Say on the child's stderr which step failed ("cannot enter namespace X: ...", "cannot run
  // X: ..."); off where that stderr is still ours and the exit code alone tells the story.
  bool report_setup_errors = false;
};

// argv joined by spaces, as error messages name a command.
std::string command_line(const std::vector<std::string>& argv);

}  // namespace geotrain::process
