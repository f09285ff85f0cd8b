#include "real/host_scripts.hpp"

#include <fmt/format.h>

#include <sstream>

#include "emu/net/delayer_launcher.hpp"
#include "real/shell_quote.hpp"

namespace geotrain::real {

namespace {

// alive PID: the process exists and is not a zombie (an orphan whose reaper is slow).
// ours PID TEXT: alive and its command line contains TEXT (a pid reused by another program is
// never killed).
const char* kHelpers =
    "alive() { [ -r /proc/$1/stat ] && [ \"$(sed 's/.*) //' /proc/$1/stat | cut -c1)\" != Z ]; }\n"
    "ours() { alive \"$1\" && tr '\\0' ' ' </proc/$1/cmdline | grep -qF -- \"$2\"; }\n"
    "stop() { kill -TERM \"$1\" 2>/dev/null; i=0; while alive \"$1\" && [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done; "
    "kill -KILL \"$1\" 2>/dev/null; true; }\n";

std::string pid_or_zero(const std::string& text) {
  std::string digits;
  for (char c : text)
    if (c >= '0' && c <= '9') digits += c;
    else if (!digits.empty()) break;
  return digits.empty() ? "0" : digits;
}

}  // namespace

std::string command_line(const emu::Command& command) {
  std::vector<std::string> argv;
  if (command.tool != emu::Tool::delayer) argv.push_back(emu::tool_name(command.tool));
  argv.insert(argv.end(), command.args.begin(), command.args.end());
  return shell_command(argv);
}

std::vector<std::string> undo_argv(const emu::Command& command) {
  if (command.tool == emu::Tool::stop_delayer) return {kStopDelayer};
  std::vector<std::string> argv{emu::tool_name(command.tool)};
  argv.insert(argv.end(), command.args.begin(), command.args.end());
  return argv;
}

std::string apply_script(const HostSpec& host, const std::vector<emu::Command>& sysctls,
                         const std::vector<emu::Command>& shaping, bool replace_root_qdisc) {
  const std::string dir = shell_quote(state_dir(host));
  std::string s = "PATH=\"$PATH:/usr/sbin:/sbin\"\nset -e\n";
  s += fmt::format("mkdir -p {0}\necho $$ > {0}/apply.pid\n", dir);
  s += fmt::format("cat > {0}/state.json.new\nmv {0}/state.json.new {0}/state.json\n", dir);
  s += "fail() { echo \"$1\" >&2; exit 1; }\n";
  s += "run() { \"$@\" 2>/tmp/geotrain-apply.$$ || { e=$(tail -n 1 /tmp/geotrain-apply.$$); rm -f /tmp/geotrain-apply.$$; "
       "fail \"$*: $e\"; }; rm -f /tmp/geotrain-apply.$$; }\n";
  for (const auto& c : sysctls) s += "run " + command_line(c) + "\n";
  if (replace_root_qdisc)
    s += fmt::format("run tc qdisc del dev {} root\n", shell_quote(host.interface));
  for (const auto& c : shaping) {
    if (c.tool != emu::Tool::delayer) {
      s += "run " + command_line(c) + "\n";
      continue;
    }
    // Its own session (no terminal, no SIGHUP when ssh goes), every stream away from ssh's
    // channel (or the session would wait for it), its pid on disk at once.
    s += fmt::format("setsid {} </dev/null >{}/delayer.log 2>&1 &\n", command_line(c), dir);
    s += fmt::format("pid=$!\necho $pid > {}/delayer.pid\n", dir);
    for (int q : emu::delayer_queues(c))
      s += fmt::format(
          "i=0; until awk '{{print $1}}' /proc/net/netfilter/nfnetlink_queue 2>/dev/null | grep -qx {0}; do "
          "kill -0 $pid 2>/dev/null || fail \"the delayer exited: $(tail -n 1 {1}/delayer.log)\"; "
          "i=$((i+1)); [ $i -lt 100 ] || fail 'the delayer did not bind queue {0} in 10 s'; sleep 0.1; done\n",
          q, dir);
  }
  s += fmt::format("rm -f {}/apply.pid\necho applied\n", dir);
  return s;
}

std::string read_state_script(const HostSpec& host) {
  const std::string dir = shell_quote(state_dir(host));
  return fmt::format("for f in state.json delayer.pid apply.pid workers.json; do "
                     "if [ -e {0}/$f ]; then echo \"### $f\"; cat {0}/$f; echo; fi; done\n",
                     dir);
}

StateFiles parse_state_files(const std::string& out) {
  StateFiles f;
  std::string* current = nullptr;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("### ", 0) == 0) {
      const std::string name = line.substr(4);
      current = name == "state.json" ? &f.state : name == "delayer.pid" ? &f.delayer_pid
              : name == "apply.pid"  ? &f.apply_pid : name == "workers.json" ? &f.workers : nullptr;
      if (current) *current = " ";  // present, even if empty
      continue;
    }
    if (current) *current += line + "\n";
  }
  return f;
}

std::string undo_script(const HostSpec& host, const StateFiles& files, const HostState* state,
                        const std::vector<WorkerRecord>& workers) {
  const std::string dir = shell_quote(state_dir(host));
  std::string s = std::string("PATH=\"$PATH:/usr/sbin:/sbin\"\n") + kHelpers;
  // An apply whose controller died may still be running: it must not add rules after us.
  if (!files.apply_pid.empty())
    s += fmt::format("p={}; if ours $p .geotrain/state.json; then kill -KILL $p; echo 'stopped a running apply'; fi\n",
                     pid_or_zero(files.apply_pid));
  for (const auto& w : workers)
    s += fmt::format("if ours {0} geotrain; then kill -KILL -- -{0} 2>/dev/null; kill -KILL {0} 2>/dev/null; "
                     "echo 'killed worker of rank {1} (pid {0})'; fi\n",
                     w.pid, w.rank);
  const std::string delayer_pid = pid_or_zero(files.delayer_pid);
  if (state != nullptr) {
    for (const auto& argv : state->undo) {
      if (argv.size() == 1 && argv[0] == kStopDelayer) {
        if (state->delayer_tag.empty()) continue;
        s += fmt::format("if ours {0} {1}; then stop {0}; echo 'stopped the delayer (pid {0})'; fi\n", delayer_pid,
                         shell_quote(state->delayer_tag));
        // A delayer whose pid never reached its file (apply killed between the two): by its tag.
        s += fmt::format("for p in $(pgrep -x geotrain-delaye); do if ours $p {0}; then stop $p; "
                         "echo \"stopped a delayer without pid file (pid $p)\"; fi; done\n",
                         shell_quote("--tag " + state->delayer_tag + " "));
        continue;
      }
      s += fmt::format("if {0} 2>/dev/null; then echo {1}; fi\n", shell_command(argv), shell_quote(shell_command(argv)));
    }
    for (const auto& [name, value] : state->sysctls)
      if (!value.empty())
        s += fmt::format("sysctl -q -w {} 2>/dev/null && echo {}\n", shell_quote(name + "=" + value),
                         shell_quote("restored " + name));
  }
  s += fmt::format("rm -f {0}/state.json {0}/delayer.pid {0}/apply.pid {0}/workers.json {0}/delayer.log\n", dir);
  s += "echo done\n";
  return s;
}

std::string status_script(const HostSpec& host, const StateFiles& files, const std::vector<WorkerRecord>& workers) {
  std::string s = std::string("PATH=\"$PATH:/usr/sbin:/sbin\"\n") + kHelpers;
  s += fmt::format("echo \"qdisc=$(tc qdisc show dev {} root 2>/dev/null | head -n 1)\"\n", shell_quote(host.interface));
  if (!files.delayer_pid.empty())
    s += fmt::format("if ours {0} geotrain-delayer; then echo delayer=alive; else echo delayer=gone; fi\n",
                     pid_or_zero(files.delayer_pid));
  for (const auto& w : workers)
    s += fmt::format("if ours {0} geotrain; then echo worker={1}:alive; else echo worker={1}:gone; fi\n", w.pid, w.rank);
  return s;
}

}  // namespace geotrain::real
