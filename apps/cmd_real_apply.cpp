// geotrain real apply / down / status: the plan of `real plan` made true on the hosts over ssh,
// undone from what each host recorded, and reported (real/real_apply.hpp, real/real_down.hpp).
// Exit 0; 2 for bad input; 1 when a host failed (apply then leaves every host as it was).
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "apps/commands.hpp"
#include "real/host_network.hpp"
#include "real/hosts_file.hpp"
#include "real/real_apply.hpp"
#include "real/real_down.hpp"
#include "real/real_plan.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace geotrain::cli {

namespace {

struct ApplyArgs {
  std::string scenario, hosts, netem = "auto", measure = "yes", out;
  std::vector<std::string> sets;
  bool force = false;
  double connect_timeout = 10;
};

void say(const std::string& line) { fmt::print("{}\n", line); }

int run_apply(const ApplyArgs& a) {
  const Scenario s = load_scenario(a.scenario, a.sets);
  if (s.placement.kind == PlacementKind::scheduler)
    throw InputError(fmt::format("{}: placement.kind = 'scheduler': geotrain real does not run the scheduler "
                                 "(expected identity, random or file)", s.path));
  if (!a.out.empty() && a.measure == "no")
    throw InputError("--out: given with --measure no (expected --out only when the links are measured)");
  const real::HostsFile hosts = real::load_hosts(a.hosts, s);
  const Program program = build_program(s);
  real::RealPlanOptions po;
  po.netem = a.netem == "yes" ? real::NetemChoice::yes : a.netem == "no" ? real::NetemChoice::no
                                                                          : real::NetemChoice::auto_detect;
  const real::RealPlan plan = real::make_real_plan(s, program, hosts, po);
  for (const auto& w : plan.warnings) say("# warning: " + w);
  real::ApplyOptions o;
  o.netem = po.netem;
  o.force = a.force;
  o.measure = a.measure == "yes";
  o.measure_options.ssh.connect_timeout_s = a.connect_timeout;
  const real::ApplyResult r = real::real_apply(plan, hosts, real::host_network(s.effective_network(), hosts), o, say);
  if (o.measure) {
    fmt::print("# measured vs configured (delay: ping minimum round trip / 2; bandwidth: iperf3 TCP goodput)\n{}",
               real::format_measures(hosts, r.measures));
    if (!a.out.empty()) {
      std::ofstream f(a.out);
      if (!(f << real::measures_json(hosts, r.measures).dump(2) << "\n"))
        throw Error(fmt::format("--out {}: cannot write: {} (the shaping stays applied)", a.out, std::strerror(errno)));
      fmt::print(stderr, "wrote {}\n", a.out);
    }
  }
  say("applied; undo with: geotrain real down --hosts " + a.hosts);
  return 0;
}

struct DownArgs {
  std::string scenario, hosts;
  std::vector<std::string> sets;
  double connect_timeout = 10;
};

real::HostsFile hosts_of(const DownArgs& a) {
  if (a.scenario.empty()) return real::load_hosts_only(a.hosts);
  return real::load_hosts(a.hosts, load_scenario(a.scenario, a.sets));
}

}  // namespace

void add_real_apply_commands(CLI::App* real, Action& action) {
  auto a = std::make_shared<ApplyArgs>();
  auto* apply = real->add_subcommand("apply", "shape every host of a hosts file as the scenario says, over ssh "
                                              "(root on the hosts), then measure every host pair");
  apply->add_option("scenario", a->scenario, "scenario YAML file")->required();
  apply->add_option("--hosts", a->hosts, "hosts YAML file (docs/real.md)")->required();
  apply->add_option("--netem", a->netem, "yes | no | auto: delay by netem, by geotrain-delayer, or netem only if "
                                         "every host has sch_netem (default auto)")
      ->check(CLI::IsMember({"yes", "no", "auto"}));
  apply->add_flag("--force", a->force, "replace a root qdisc that is not a kernel default (down does not restore it)");
  apply->add_option("--measure", a->measure, "yes | no: measure delay and bandwidth of every host pair (default yes)")
      ->check(CLI::IsMember({"yes", "no"}));
  apply->add_option("--out", a->out, "also write the measurements as JSON to this file");
  apply->add_option("--connect-timeout", a->connect_timeout, "ssh ConnectTimeout in seconds (default 10)")
      ->check(CLI::Range(1.0, 600.0));
  apply->add_option("--set", a->sets, "override a scenario key: key.path=value (repeatable)");
  apply->callback([&action, a] { action = [a] { return run_apply(*a); }; });

  // down and status read the same arguments and run one per-host action over ssh.
  const auto add_hosts_command = [&](const char* name, const char* what, const char* scenario_help,
                                     int (*per_host)(const real::HostsFile&, const real::SshOptions&, const real::Say&)) {
    auto args = std::make_shared<DownArgs>();
    auto* cmd = real->add_subcommand(name, what);
    cmd->add_option("scenario", args->scenario, scenario_help);
    cmd->add_option("--hosts", args->hosts, "hosts YAML file")->required();
    cmd->add_option("--connect-timeout", args->connect_timeout, "ssh ConnectTimeout in seconds (default 10)")
        ->check(CLI::Range(1.0, 600.0));
    cmd->add_option("--set", args->sets, "override a scenario key (with SCENARIO)");
    cmd->callback([&action, args, per_host] {
      action = [args, per_host] {
        real::SshOptions o;
        o.connect_timeout_s = args->connect_timeout;
        return per_host(hosts_of(*args), o, say) == 0 ? 0 : 1;
      };
    });
  };
  add_hosts_command("down", "undo on every host what apply recorded there (also after a crash); kills recorded workers",
                    "scenario YAML file (optional: only checks the hosts file against it)", real::real_down);
  add_hosts_command("status", "per host: reachable, state recorded, root qdisc, delayer, workers",
                    "scenario YAML file (optional)", real::real_status);
}

}  // namespace geotrain::cli
