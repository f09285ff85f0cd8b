#pragma once
// The hosts file of a real cluster: which machines run which of a scenario's ranks, how to reach
// them over ssh, which interface to shape and where the worker lives. YAML, read with yaml-cpp
// and validated like a scenario: every problem at once, one line each,
//   scenarios/real/hosts.yaml:12: hosts[1].ranks: rank 3 already runs on host 'tokyo' (line 7)
// thrown as ScenarioError (exit 2). docs/real.md is the reference.
//
// A rank here is a scenario device (0 .. devices-1 in file order), what the emulator gives one
// namespace each; the Program's ranks run on the host of their device (Program::device_of_rank).
#include <string>
#include <vector>

#include "real/ssh_target.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::real {

struct HostSpec {
  std::string name;          // [A-Za-z0-9._-]{1,64}: reaches process arguments and file names
  SshTarget address;         // where ssh goes
  std::string data_address;  // IPv4 the other hosts reach `interface` at (tc filters, MASTER_ADDR)
  std::string interface;     // the device shaped on this host
  std::vector<int> ranks;    // ascending
  std::string workdir;       // on the host; relative paths are from the ssh login directory
  std::string worker;        // geotrain-worker on the host
  std::string delayer;       // geotrain-delayer on the host (default: beside the worker)
  std::string device = "cpu";  // cpu | cuda: where its workers train (--device; nccl needs cuda)
  std::vector<std::string> ssh_options;
  int line = 0;
};

struct HostsFile {
  std::string path;
  std::vector<HostSpec> hosts;
  std::vector<int> host_of_rank;  // index into hosts, for every rank of the scenario
};

// Throws ScenarioError with every problem found. Reads nothing but the file.
HostsFile load_hosts(const std::string& path, const Scenario& scenario);
// The hosts without a scenario (`real down`, `real status`): everything but ranks and regions is
// checked; ranks stay empty and host_of_rank too.
HostsFile load_hosts_only(const std::string& path);
// The hosts for `real probe`: as load_hosts_only, but interface, workdir and worker are optional
// (a probe logs in, measures and changes nothing).
HostsFile load_hosts_for_probe(const std::string& path);
// The same from text; display_name is used in messages.
HostsFile parse_hosts(const std::string& text, const std::string& display_name, const Scenario& scenario);

// nullopt when `path` is a path geotrain may pass to a remote command: /-separated names of
// [A-Za-z0-9._-], none starting with '.' or '-', optionally starting with '/'; else what is wrong.
std::optional<std::string> remote_path_problem(const std::string& path);

}  // namespace geotrain::real
