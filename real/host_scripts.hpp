#pragma once
// The shell scripts `real apply`, `down` and `status` run on a host over ssh, one round trip
// each. Every word that comes from a file is quoted (shell_quote.hpp). Pure text: the scripts
// are unit-tested here and run in tests/real against the ssh rig.
#include <string>
#include <vector>

#include "emu/net/command.hpp"
#include "real/host_state.hpp"
#include "real/hosts_file.hpp"

namespace geotrain::real {

// One command of a plan as a quoted shell line (tool name first).
std::string command_line(const emu::Command& command);
// The argv of an undo step as the state file keeps it ({kStopDelayer} for the delayer).
std::vector<std::string> undo_argv(const emu::Command& command);

// Apply on one host: writes apply.pid and the state file (stdin: its text) BEFORE anything
// changes, then the sysctls, the root qdisc replacement (with --force), the shaping commands in
// order; a Tool::delayer command starts the delayer in its own session with its output in
// <state dir>/delayer.log, writes delayer.pid and waits (up to 10 s) until each of its queues is
// bound before the iptables rules that feed them are added. Stops at the first failure (exit
// non-zero, what failed on stderr); the caller then undoes from the state file.
std::string apply_script(const HostSpec& host, const std::vector<emu::Command>& sysctls,
                         const std::vector<emu::Command>& shaping, bool replace_root_qdisc);

// Prints the state dir's files between "### <name>" lines (state.json, delayer.pid, apply.pid,
// workers.json; a missing file is not printed).
std::string read_state_script(const HostSpec& host);
struct StateFiles {
  std::string state, delayer_pid, apply_pid, workers;  // "" = absent
};
StateFiles parse_state_files(const std::string& out);

// Undo on one host, from what read_state_script found: a still running apply script is killed,
// the recorded workers' groups are killed, the undo commands run in order (errors ignored: an
// object already gone is fine), the delayer is killed if /proc/<pid>/cmdline carries its tag,
// sysctls are restored, and the state files are deleted. Prints one line per thing undone.
std::string undo_script(const HostSpec& host, const StateFiles& files, const HostState* state,
                        const std::vector<WorkerRecord>& workers);

// Status: root qdisc of the interface, delayer and workers alive (prints key=value lines).
std::string status_script(const HostSpec& host, const StateFiles& files, const std::vector<WorkerRecord>& workers);

}  // namespace geotrain::real
