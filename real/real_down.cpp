#include "real/real_down.hpp"

#include <fmt/format.h>

#include <optional>
#include <sstream>

#include "real/host_scripts.hpp"
#include "real/host_state.hpp"

namespace geotrain::real {

namespace {

constexpr double kDownScriptTimeout = 60;

StateFiles read_files(const HostSpec& host, const SshOptions& ssh) {
  return parse_state_files(ssh_run_checked(host, read_state_script(host), "reading the state", {"", kDownScriptTimeout}, ssh).out);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

std::vector<std::string> down_host(const HostSpec& host, const SshOptions& ssh) {
  const StateFiles files = read_files(host, ssh);
  if (files.state.empty() && files.delayer_pid.empty() && files.apply_pid.empty() && files.workers.empty())
    return {"nothing to undo"};
  const std::string where = fmt::format("{}:{}/state.json", host.name, state_dir(host));
  std::optional<HostState> state;
  std::vector<WorkerRecord> workers;
  std::vector<std::string> notes;
  // A damaged file must not stop the rest of the undo: say so and undo what can be read.
  try {
    if (!files.state.empty() && files.state != " ") state = parse_state(files.state, where);
  } catch (const Error& e) {
    notes.push_back(std::string("cannot read the state (its undo is skipped): ") + e.what());
  }
  try {
    if (!files.workers.empty() && files.workers != " ") workers = parse_workers(files.workers, host.name + ":workers.json");
  } catch (const Error& e) {
    notes.push_back(std::string("cannot read the workers: ") + e.what());
  }
  const auto r = ssh_run_checked(host, undo_script(host, files, state ? &*state : nullptr, workers), "undo",
                                 {"", kDownScriptTimeout}, ssh);
  std::vector<std::string> out = lines_of(r.out);
  if (!out.empty() && out.back() == "done") out.pop_back();
  if (state && !state->replaced_qdisc.empty())
    out.push_back("not restored: the root qdisc --force replaced: " + state->replaced_qdisc);
  out.insert(out.begin(), notes.begin(), notes.end());
  if (out.empty()) out.push_back("state files removed");
  return out;
}

int real_down(const HostsFile& hosts, const SshOptions& ssh, const Say& say) {
  int failed = 0;
  for (const auto& host : hosts.hosts) {
    try {
      for (const auto& line : down_host(host, ssh)) say(fmt::format("{}: {}", host.name, line));
    } catch (const Error& e) {
      say(e.what());
      ++failed;
    }
  }
  return failed;
}

int real_status(const HostsFile& hosts, const SshOptions& ssh, const Say& say) {
  int unreachable = 0;
  for (const auto& host : hosts.hosts) {
    try {
      const StateFiles files = read_files(host, ssh);
      std::vector<WorkerRecord> workers;
      try {
        if (!files.workers.empty() && files.workers != " ") workers = parse_workers(files.workers, host.name);
      } catch (const Error&) {
      }
      const auto r = ssh_run_checked(host, status_script(host, files, workers), "status", {"", kDownScriptTimeout}, ssh);
      std::string qdisc = "?", delayer = "none", worker_list;
      for (const auto& line : lines_of(r.out)) {
        if (line.rfind("qdisc=", 0) == 0) qdisc = line.substr(6).empty() ? "none" : line.substr(6);
        else if (line.rfind("delayer=", 0) == 0) delayer = line.substr(8);
        else if (line.rfind("worker=", 0) == 0) worker_list += (worker_list.empty() ? "" : ", ") + line.substr(7);
      }
      say(fmt::format("{}: reachable; state {}; {} root: {}; delayer {}; workers {}", host.name,
                      files.state.empty() ? "none" : "recorded", host.interface, qdisc, delayer,
                      worker_list.empty() ? "none" : worker_list));
    } catch (const HostError& e) {
      say(fmt::format("{}: unreachable: {}", host.name, e.what()));
      ++unreachable;
    }
  }
  return unreachable;
}

}  // namespace geotrain::real
