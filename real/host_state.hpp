#pragma once
// What `geotrain real apply` did on one host, recorded ON that host before it changes anything
// (<workdir>/.geotrain/state.json), so `real down` can undo exactly that even when the controller
// that applied it is gone: the undo commands in order, the delayer's tag, the sysctls' previous
// values. Beside it: delayer.pid (written by the remote shell as it starts the delayer),
// apply.pid (the remote apply script, stopped by down if still running) and workers.json (the
// workers `real run` started: [{"rank": R, "pid": P}], P leading its process group).
#include <string>
#include <utility>
#include <vector>

#include "real/hosts_file.hpp"

namespace geotrain::real {

inline constexpr const char* kStateDirName = ".geotrain";
inline constexpr const char* kStopDelayer = "<stop-delayer>";  // the undo step that kills the delayer

std::string state_dir(const HostSpec& host);  // <workdir>/.geotrain

struct HostState {
  std::string host, scenario, interface;
  std::string variant;           // "netem" or "delayer"
  std::string geotrain_version;  // of the controller that applied it
  // Undo commands as argv, in the order to run them; {kStopDelayer} stands for the delayer.
  std::vector<std::vector<std::string>> undo;
  std::string delayer_tag;  // its --tag value ("" without a delayer): down kills only a process carrying it
  std::vector<std::pair<std::string, std::string>> sysctls;  // name, value before apply
  std::string replaced_qdisc;  // with --force: the root qdisc apply deleted (not restored by down)
};

std::string state_text(const HostState& state);  // JSON, one file
// Throws Error "<where>: state file: <what is wrong>".
HostState parse_state(const std::string& text, const std::string& where);

struct WorkerRecord {
  int rank = 0;
  int pid = 0;
};
// workers.json as `real run` writes it. Throws Error "<where>: workers file: <what is wrong>".
std::vector<WorkerRecord> parse_workers(const std::string& text, const std::string& where);
std::string workers_text(const std::vector<WorkerRecord>& workers);

}  // namespace geotrain::real
