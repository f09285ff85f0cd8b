// geotrain emu up|down|status|linktest: the emulated cluster on one machine (emu/net/).
//   up <scenario>            build the cluster and leave it running (--dry-run: print the plan)
//   down [<cluster|scenario>] [--all [--cluster-prefix P]]   remove it, or every leftover
//   status                   clusters, their namespaces and the health of their delayers
//   linktest <scenario>      measure every pair (or a sample) against the scenario
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unistd.h>

#include "apps/commands.hpp"
#include "emu/net/bandwidth_plan.hpp"
#include "emu/net/cluster_builder.hpp"
#include "emu/net/emu_cluster.hpp"
#include "emu/net/host_checks.hpp"
#include "emu/net/interrupt.hpp"
#include "emu/net/linktest/link_test.hpp"
#include "emu/net/orphan_reaper.hpp"
#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace geotrain::cli {

namespace {

struct EmuArgs {
  std::string scenario, cluster, subnet, backend = "auto", delayer, target, prefix, pairs = "all", out;
  std::vector<std::string> sets;
  bool dry_run = false, all = false, sequential = false;
  double window_s = 0;
};

// Clusters whose owner died without removing them (emu/net/orphan_reaper.hpp): one line each.
void reap_orphans(const emu::StateStore& store) {
  for (const auto& reaped : emu::reap_orphaned_clusters(store)) fmt::print(stderr, "{}\n", reaped.line());
}

emu::UpOptions up_options(const EmuArgs& a) {
  emu::UpOptions o;
  o.cluster = a.cluster;
  if (!a.subnet.empty()) o.subnet = a.subnet;
  o.backend = a.backend == "netem" ? DelayBackend::netem
              : a.backend == "nfqueue" ? DelayBackend::nfqueue
                                       : DelayBackend::auto_detect;
  o.delayer = a.delayer;
  return o;
}

// The scenario's own delay_backend unless the flag was given.
Scenario load(const EmuArgs& a, bool backend_flag_given, emu::UpOptions& o) {
  Scenario s = load_scenario(a.scenario, a.sets);
  if (!backend_flag_given) o.backend = s.emulation.delay_backend;
  return s;
}

void add_cluster_options(CLI::App* cmd, EmuArgs& a) {
  cmd->add_option("--cluster", a.cluster, "cluster name, [a-z0-9_] (default: from the scenario name)");
  cmd->add_option("--subnet", a.subnet, "private IPv4 range for the ranks (default: first free 10.200-254.0.0/16)");
  cmd->add_option("--delay-backend", a.backend, "auto | netem | nfqueue (default: the scenario's emulation.delay_backend)")
      ->check(CLI::IsMember({"auto", "netem", "nfqueue"}));
  cmd->add_option("--delayer", a.delayer, "path of geotrain-delayer (default: next to geotrain)");
  cmd->add_option("--set", a.sets, "override a scenario key: key.path=value (repeatable)");
}

int run_up(const EmuArgs& a, bool backend_given) {
  emu::UpOptions o = up_options(a);
  const Scenario s = load(a, backend_given, o);
  const emu::StateStore store;
  if (a.dry_run) {
    const emu::Plan plan = emu::plan_cluster(s, o, store);
    fmt::print("{}{}", emu::format_plan(plan), emu::format_bandwidth_plan(emu::plan_bandwidth_changes(s, plan.layout)));
    return 0;
  }
  reap_orphans(store);
  const auto t0 = std::chrono::steady_clock::now();
  const emu::ClusterRecord r = emu::bring_up(s, o, store);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("{}  (built in {:.2f} s)\n", emu::usage_hint(r), took);
  return 0;
}

int run_down(const EmuArgs& a) {
  emu::require_network_privileges("geotrain emu down");
  const emu::StateStore store;
  const auto t0 = std::chrono::steady_clock::now();
  emu::TeardownReport r;
  if (a.all) {
    r = emu::teardown_all(a.prefix, store);
  } else {
    if (a.target.empty()) throw InputError("geotrain emu down: name a cluster or a scenario, or pass --all");
    std::string cluster = a.target;
    if (std::filesystem::is_regular_file(a.target))
      cluster = a.cluster.empty() ? emu::cluster_name_from(load_scenario(a.target, a.sets).name) : a.cluster;
    r = emu::teardown_cluster(cluster, store);
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  fmt::print("removed {} namespaces, stopped {} processes ({:.2f} s)\n", r.namespaces, r.processes, took);
  return 0;
}

int run_status() {
  const emu::StateStore store;
  reap_orphans(store);
  const auto clusters = emu::cluster_status(store);
  if (clusters.empty()) fmt::print("no emulated cluster\n");
  bool healthy = true;
  for (const auto& c : clusters) {
    const auto& r = c.record;
    if (r.ranks == 0) {
      fmt::print("{}: leftover namespaces without a record (geotrain emu down {})\n", r.cluster, r.cluster);
      healthy = false;
      continue;
    }
    fmt::print("{}: {} ranks, subnet {}, backend {}, scenario {}{}{}\n", r.cluster, r.ranks, r.subnet,
               r.backend, r.scenario, r.complete ? "" : " (INCOMPLETE: still building, or its builder died)",
               !r.owner ? "" : emu::owner_gone(r) ? fmt::format(" (ORPHANED: owner pid {} is gone)", r.owner->pid)
                                                  : fmt::format(" (lives with pid {})", r.owner->pid));
    healthy = healthy && !emu::owner_gone(r);
    for (const auto& h : c.ranks)
      if (!h.namespace_present || !h.delayer_problem.empty())
        fmt::print("  {}: {}\n", h.netns, h.namespace_present ? h.delayer_problem : "namespace missing");
    healthy = healthy && c.healthy();
  }
  return healthy ? 0 : 1;
}

std::string default_out(const Scenario& s) {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  return path_under("results", {s.name, "emu-linktest", fmt::format("{}-{}", stamp, getpid()),
                                "linktest.json"},
                    "name")
      .string();
}

int run_linktest(const EmuArgs& a, bool backend_given) {
  emu::UpOptions o = up_options(a);
  const Scenario s = load(a, backend_given, o);
  emu::require_network_privileges("geotrain emu linktest");
  const emu::StateStore store;
  const std::string name = a.cluster.empty() ? emu::cluster_name_from(s.name) : a.cluster;
  auto existing = store.load(name);
  // Without a running cluster of that name, one is built for the test and removed after it.
  std::unique_ptr<emu::CleanupOnSignal> cleanup;
  std::unique_ptr<emu::ClusterGuard> guard;  // declared before `remove`: dropped after the teardown
  bool temporary = false;
  if (!existing || !existing->complete) {
    reap_orphans(store);
    auto built = emu::bring_up_owned(s, o, store);
    existing = built.record;
    guard = std::move(built.guard);
    temporary = true;
    cleanup = std::make_unique<emu::CleanupOnSignal>(name);
    fmt::print("built temporary cluster {} (subnet {}, backend {})\n", name, existing->subnet, existing->backend);
  }
  struct Remove {
    bool armed;
    std::string cluster;
    ~Remove() { if (armed) emu::teardown_cluster(cluster, emu::StateStore()); }
  } remove{temporary, name};
  if (existing->ranks != static_cast<int>(s.devices.size()))
    throw InputError(fmt::format("cluster {} has {} ranks but {} has {} devices", name,
                                 existing->ranks, a.scenario, s.devices.size()));
  const emu::ClusterLayout layout(name, existing->ranks, emu::Ipv4Subnet::parse(existing->subnet));
  emu::LinktestOptions lo;
  lo.pairs = a.pairs;
  lo.sequential = a.sequential;
  lo.window_s = a.window_s;
  const auto links = emu::run_linktest(s, layout, lo);
  fmt::print("{}", emu::linktest_table(links));
  const std::string out = a.out.empty() ? default_out(s) : a.out;
  std::filesystem::create_directories(std::filesystem::path(out).parent_path().empty()
                                          ? std::filesystem::path(".") : std::filesystem::path(out).parent_path());
  std::ofstream(out) << emu::linktest_json(s, layout, lo, links);
  int failed = 0;
  for (const auto& l : links) failed += l.delay_ok && l.bandwidth_ok ? 0 : 1;
  fmt::print("{} of {} links within tolerance (delay 1 ms + 5%, bandwidth 10%); wrote {}\n",
             links.size() - static_cast<std::size_t>(failed), links.size(), out);
  return failed == 0 ? 0 : 1;
}

}  // namespace

void add_emu_command(CLI::App& app, Action& action) {
  auto* emu_cmd = app.add_subcommand("emu", "emulated cluster on this machine: network namespaces with shaped links");
  emu_cmd->require_subcommand(1);
  auto a = std::make_shared<EmuArgs>();

  auto* up = emu_cmd->add_subcommand("up", "build the cluster of a scenario and leave it running");
  up->add_option("scenario", a->scenario, "scenario YAML file")->required();
  add_cluster_options(up, *a);
  up->add_flag("--dry-run", a->dry_run, "print every command (and its undo) without running anything");
  up->callback([&action, a, up] {
    const bool given = up->count("--delay-backend") > 0;
    action = [a, given] { return run_up(*a, given); };
  });

  auto* down = emu_cmd->add_subcommand("down", "remove a cluster (or, with --all, every geotrain cluster)");
  down->add_option("target", a->target, "cluster name or scenario file");
  down->add_flag("--all", a->all, "remove every cluster and leftover (namespaces, delayers) by prefix");
  down->add_option("--cluster-prefix", a->prefix, "with --all: only clusters whose name starts with this");
  down->add_option("--cluster", a->cluster, "cluster name when target is a scenario file");
  down->callback([&action, a] { action = [a] { return run_down(*a); }; });

  auto* status = emu_cmd->add_subcommand("status", "list clusters and check their delayers (exit 1 if unhealthy)");
  status->callback([&action] { action = [] { return run_status(); }; });

  auto* lt = emu_cmd->add_subcommand("linktest", "measure each pair's delay and bandwidth against the scenario");
  lt->add_option("scenario", a->scenario, "scenario YAML file")->required();
  add_cluster_options(lt, *a);
  lt->add_option("--pairs", a->pairs, "all | sample:K");
  lt->add_flag("--sequential", a->sequential, "one pair at a time (default: rounds of disjoint pairs)");
  lt->add_option("--window", a->window_s, "bandwidth window in seconds (default: max(1 s, 4 RTT))")
      ->check(CLI::Range(0.0, 3600.0));
  lt->add_option("--out", a->out, "JSON file (default: results/<scenario>/emu-linktest/<run>/linktest.json)");
  add_emu_guard_command(emu_cmd, action);

  lt->callback([&action, a, lt] {
    const bool given = lt->count("--delay-backend") > 0;
    action = [a, given] { return run_linktest(*a, given); };
  });
}

}  // namespace geotrain::cli
