// geotrain real plan <scenario> --hosts FILE: what `real apply` and `real run` would do on each
// host of a hosts file (real/), printed without root, network or ssh. Exit 0, or 2 for bad input.
#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>

#include "apps/commands.hpp"
#include "real/hosts_file.hpp"
#include "real/plan_json.hpp"
#include "real/real_plan.hpp"
#include "real/worker_backend.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace geotrain::cli {

namespace {

struct RealArgs {
  std::string scenario, hosts, netem = "auto", out, backend;
  std::vector<std::string> sets;
  int master_port = 29500;
  bool json = false;
};

int run_plan(const RealArgs& a) {
  if (a.json != !a.out.empty())
    throw InputError(a.json ? "--json: needs --out FILE (expected --json --out plan.json)"
                            : "--out: given without --json (expected --json --out FILE)");
  const Scenario s = load_scenario(a.scenario, a.sets);
  if (s.placement.kind == PlacementKind::scheduler)
    throw InputError(fmt::format("{}: placement.kind = 'scheduler': geotrain real does not run the scheduler "
                                 "(expected identity, random or file)", s.path));
  const real::HostsFile hosts = real::load_hosts(a.hosts, s);
  const Program program = build_program(s);
  real::RealPlanOptions o;
  o.netem = a.netem == "yes" ? real::NetemChoice::yes : a.netem == "no" ? real::NetemChoice::no
                                                                         : real::NetemChoice::auto_detect;
  o.master_port = a.master_port;
  real::RealPlan plan = real::make_real_plan(s, program, hosts, o);
  // What run would launch; the plan does not need this build's LibTorch to have CUDA.
  real::apply_backend(plan, real::resolve_backend(a.backend, s.emulation.collectives));
  fmt::print("{}", real::format_real_plan(plan));
  if (a.json) {
    std::ofstream f(a.out);
    if (!(f << real::real_plan_json(plan).dump(2) << "\n"))
      throw InputError(fmt::format("--out {}: cannot write: {}", a.out, std::strerror(errno)));
    fmt::print(stderr, "wrote {}\n", a.out);
  }
  return 0;
}

}  // namespace

void add_real_command(CLI::App& app, Action& action) {
  auto* real = app.add_subcommand("real", "real machines over ssh (docs/real.md): plan, apply, run, down, status, probe");
  real->require_subcommand(1);
  auto a = std::make_shared<RealArgs>();
  auto* plan = real->add_subcommand("plan", "print what apply and run would do on each host (no root, no network)");
  plan->add_option("scenario", a->scenario, "scenario YAML file")->required();
  plan->add_option("--hosts", a->hosts, "hosts YAML file (docs/real.md)")->required();
  plan->add_option("--netem", a->netem, "yes | no | auto: delay by netem, by geotrain-delayer, or decided on "
                                        "each host at apply time (default auto: both listed)")
      ->check(CLI::IsMember({"yes", "no", "auto"}));
  plan->add_option("--master-port", a->master_port, "port of rank 0's store (default 29500)")
      ->check(CLI::Range(1, 65535));
  plan->add_option("--backend", a->backend, "gloo | nccl: the workers' process groups (default: nccl for "
                                            "emulation.collectives nccl, else gloo; nccl needs device: cuda on every host)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  plan->add_flag("--json", a->json, "also write the plan as JSON to --out");
  plan->add_option("--out", a->out, "file the JSON plan is written to (with --json)");
  plan->add_option("--set", a->sets, "override a scenario key: key.path=value (repeatable)");
  plan->callback([&action, a] { action = [a] { return run_plan(*a); }; });
  add_real_apply_commands(real, action);
  add_real_run_command(real, action);
  add_real_probe_command(real, action);
}

}  // namespace geotrain::cli
