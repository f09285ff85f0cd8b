// geotrain real probe --hosts FILE --out network.yaml: every ordered host pair measured over ssh
// (ping RTT and loss, iperf3 one-flow and N-flow goodput), nothing changed on the hosts; writes a
// scenario network section, a CSV report and a heat map (real/probe_*.hpp, docs/real.md "probe").
// Exit 0; 2 for bad input or a host that cannot be probed (before anything is measured); 1 when
// a measurement failed.
#include <fmt/format.h>
#include <unistd.h>

#include <memory>

#include "apps/commands.hpp"
#include "real/hosts_file.hpp"
#include "real/probe_measure.hpp"
#include "real/probe_report.hpp"
#include "real/ssh_client.hpp"
#include "sim/common/data_dir.hpp"
#include "sim/common/error.hpp"
#include "sim/process/run.hpp"

namespace geotrain::cli {

namespace {

struct ProbeArgs {
  std::string hosts, out, python = "/usr/bin/python3", plots = data_dir() + "/plots";
  bool force = false;
  double connect_timeout = 10;
  real::ProbeOptions o;
};

void probe_say(const std::string& line) {
  fmt::print("{}\n", line);
  std::fflush(stdout);
}

// The heat map from the CSV; a missing python or matplotlib only costs the PNG.
void draw_heat_map(const ProbeArgs& a, const real::ProbeOutputs& out) {
  const std::string script = a.plots + "/plot_probe.py";
  if (::access(a.python.c_str(), X_OK) != 0 || ::access(script.c_str(), R_OK) != 0) {
    fmt::print(stderr, "warning: no heat map: {} or {} missing (the CSV has the figures)\n",
               a.python, script);
    return;
  }
  process::ChildSpec spec;
  spec.argv = {a.python, script, out.csv, out.png};
  process::RunOptions ro;
  ro.timeout_s = 120;
  try {
    const auto r = process::run(spec, ro);
    if (r.status != 0) {
      fmt::print(stderr, "warning: no heat map: {} exited {}: {}\n", script, r.status,
                 real::last_line(r.err));
      return;
    }
    fmt::print("wrote {}\n", out.png);
  } catch (const Error& e) {
    fmt::print(stderr, "warning: no heat map: {}\n", e.what());
  }
}

int run_probe(ProbeArgs& a) {
  const real::HostsFile hosts = real::load_hosts_for_probe(a.hosts);
  if (hosts.hosts.size() < 2)
    throw InputError(fmt::format("{}: {} host (expected at least 2 hosts to measure between)",
                                 a.hosts, hosts.hosts.size()));
  const real::ProbeOutputs out = real::probe_outputs(a.out);
  if (auto problems = real::output_problems(out, a.force); !problems.empty())
    throw InputError(problems);
  a.o.ssh.connect_timeout_s = a.connect_timeout;
  if (auto problems = real::probe_check(hosts, a.o); !problems.empty()) throw InputError(problems);
  const auto pairs = real::probe_hosts(hosts, a.o, probe_say);
  real::write_file_atomically(out.yaml, real::probe_network_yaml(hosts, pairs, a.o), a.force);
  real::write_file_atomically(out.csv, real::probe_csv(hosts, pairs, a.o), a.force);
  fmt::print(
      "wrote {} (network section: delay = min RTT / 2, bandwidth = {}-flow goodput) and {}\n",
      out.yaml, a.o.flows, out.csv);
  draw_heat_map(a, out);
  return 0;
}

}  // namespace

void add_real_probe_command(CLI::App* real, Action& action) {
  auto a = std::make_shared<ProbeArgs>();
  auto* cmd =
      real->add_subcommand("probe",
                           "measure every host pair over ssh (ping, iperf3; nothing changed on the "
                           "hosts) and write a scenario network section");
  cmd->add_option("--hosts", a->hosts,
                  "hosts YAML file (docs/real.md; interface, workdir, worker optional)")
      ->required();
  cmd->add_option("--out", a->out,
                  "the network section to write, e.g. network.yaml (the report goes beside it: "
                  "network.csv, network.png)")
      ->required();
  cmd->add_flag("--force", a->force, "replace the output files if they exist");
  cmd->add_option("--flows", a->o.flows, "parallel TCP flows of the N-flow test (default 8)")
      ->check(CLI::Range(2, 128));
  cmd->add_option("--seconds", a->o.seconds,
                  "seconds per iperf3 test, after 1 s omitted (default 5)")
      ->check(CLI::Range(1, 600));
  cmd->add_option("--pings", a->o.pings, "pings per pair, 0.2 s apart (default 20)")
      ->check(CLI::Range(2, 10000));
  cmd->add_option("--port", a->o.port, "TCP port of the iperf3 servers (default 5201)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--connect-timeout", a->connect_timeout,
                  "ssh ConnectTimeout in seconds (default 10)")
      ->check(CLI::Range(1.0, 600.0));
  cmd->add_option("--python", a->python,
                  "python with matplotlib for the heat map (default /usr/bin/python3)");
  cmd->add_option("--plots", a->plots, "folder of the plot scripts (plot_probe.py)");
  cmd->callback([&action, a] { action = [a] { return run_probe(*a); }; });
}

}  // namespace geotrain::cli
