#pragma once
// What `geotrain real probe` writes: the scenario network section (network.yaml), the report CSV
// beside it and the paths of both (and of the heat map PNG plots/plot_probe.py draws from the CSV).
//
// The network section is an explicit matrix over the hosts in the hosts file's order (device i of
// a scenario = host i): delay[i][j] = minimum ping RTT of i -> j / 2, bandwidth[i][j] = the N-flow
// iperf3 goodput i -> j (the path's capacity; a single flow's window limit is the simulator's
// own business: network.tcp_buffer), `symmetric: false`. Loss goes to the CSV and, where a pair
// lost pings, to a comment (scenarios have no loss).
#include <string>
#include <vector>

#include "real/hosts_file.hpp"
#include "real/probe_measure.hpp"

namespace geotrain::real {

struct ProbeOutputs {
  std::string yaml, csv, png;  // network.yaml -> network.csv, network.png
};

// From --out: must end in .yaml or .yml (InputError otherwise); the report shares its stem.
ProbeOutputs probe_outputs(const std::string& out);
// What stops the outputs from being written, one line each (exit 2 before anything is measured):
// a file already there (unless force), a folder that does not exist or cannot be written.
std::vector<std::string> output_problems(const ProbeOutputs& o, bool force);

std::string probe_network_yaml(const HostsFile& hosts, const std::vector<ProbePair>& pairs,
                               const ProbeOptions& o);
std::string probe_csv(const HostsFile& hosts, const std::vector<ProbePair>& pairs,
                      const ProbeOptions& o);

// Writes through a temporary file in the same folder, then renames (force) or links (no force:
// fails if the file appeared meanwhile) it into place: a reader sees the whole file or none.
void write_file_atomically(const std::string& path, const std::string& text, bool force);

}  // namespace geotrain::real
