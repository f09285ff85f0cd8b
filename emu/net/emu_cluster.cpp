#include "emu/net/emu_cluster.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "emu/net/cluster_builder.hpp"
#include "emu/net/delayer_launcher.hpp"
#include "emu/net/host_checks.hpp"
#include "emu/net/interrupt.hpp"
#include "emu/net/netns_util.hpp"
#include "emu/net/process_identity.hpp"
#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

Backend resolve_backend(DelayBackend wanted, std::vector<std::string>& notes) {
  if (wanted == DelayBackend::nfqueue) return Backend::nfqueue;
  if (!has_network_privileges()) {
    if (wanted == DelayBackend::netem) return Backend::netem;
    notes.push_back("delay backend auto resolved to nfqueue without probing (the netem probe needs root)");
    return Backend::nfqueue;
  }
  const bool netem = netem_available();
  if (wanted == DelayBackend::netem && !netem)
    throw InputError("--delay-backend = 'netem': this kernel has no sch_netem (expected "
                     "'nfqueue' or 'auto', which use the NFQUEUE delayer)");
  return netem ? Backend::netem : Backend::nfqueue;
}

std::string plan_delayer(const Plan& plan) {
  for (const auto& step : plan.steps)
    if (step.action.tool == Tool::delayer) return step.action.args.front();
  return "";
}

// The queues a running delayer serves, from its command line (--queue <num>:<delay>).
std::vector<int> queues_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  Command c;
  for (std::string arg; std::getline(in, arg, '\0');) c.args.push_back(arg);
  return delayer_queues(c);
}

}  // namespace

std::string default_delayer_path() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "geotrain-delayer" : (self.parent_path() / "geotrain-delayer").string();
}

Plan plan_cluster(const Scenario& scenario, const UpOptions& options, const StateStore& store) {
  const std::string name = options.cluster.empty() ? cluster_name_from(scenario.name) : options.cluster;
  const auto records = store.load_all();
  std::vector<ClusterRecord> others;
  for (const auto& r : records)
    if (r.cluster != name) others.push_back(r);
  const auto host = host_prefixes();
  Ipv4Subnet subnet;
  if (options.subnet) {
    subnet = Ipv4Subnet::parse(*options.subnet);
    if (auto why = subnet_conflict(subnet, host, others); !why.empty())
      throw InputError("--subnet = '" + *options.subnet + "': " + why);
  } else {
    subnet = pick_free_subnet(host, others);
  }
  ClusterLayout layout(name, static_cast<int>(scenario.devices.size()), subnet);
  std::vector<std::string> notes;
  PlanOptions po;
  po.backend = resolve_backend(options.backend, notes);
  po.delayer = options.delayer.empty() ? default_delayer_path() : options.delayer;
  Plan plan = make_plan(scenario, layout, po);
  plan.notes.insert(plan.notes.begin(), notes.begin(), notes.end());
  return plan;
}

namespace {

OwnedCluster build_cluster(const Scenario& scenario, const UpOptions& options, const StateStore& store,
                           Lifetime lifetime) {
  require_network_privileges("geotrain emu up");
  const std::string name = options.cluster.empty() ? cluster_name_from(scenario.name) : options.cluster;
  ClusterLayout(name, 1, Ipv4Subnet{0x0A000000u, 8});  // validates the name before anything else
  require_cluster_free(name, store);
  const Plan plan = plan_cluster(scenario, options, store);
  if (plan.backend == Backend::nfqueue && !plan_delayer(plan).empty() && access(plan_delayer(plan).c_str(), X_OK) != 0)
    throw InputError("delayer '" + plan_delayer(plan) + "' is not an executable (build the "
                     "geotrain-delayer target, or pass --delayer PATH)");
  CleanupOnSignal cleanup(name);
  // The guardian runs before the record names us and before anything exists; on an exception
  // the builder undoes first (record removed), then the guard is dropped and its guardian exits.
  const ProcessIdentity self = this_process();
  auto guard = std::make_unique<ClusterGuard>(name, store, self);
  ClusterBuilder builder(plan, store, scenario.path, self);
  builder.build();
  return {builder.keep(lifetime), std::move(guard)};
}

}  // namespace

ClusterRecord bring_up(const Scenario& scenario, const UpOptions& options, const StateStore& store) {
  // The record names no owner any more: the guard dropped here lets its guardian exit.
  return build_cluster(scenario, options, store, Lifetime::until_down).record;
}

OwnedCluster bring_up_owned(const Scenario& scenario, const UpOptions& options, const StateStore& store) {
  return build_cluster(scenario, options, store, Lifetime::with_owner);
}

std::string usage_hint(const ClusterRecord& r) {
  return fmt::format("cluster {} is up: {} ranks, subnet {}, delay backend {}\n"
                     "  run a program in rank 0:   ip netns exec {}{}-0 <program>\n"
                     "  rank r has address:        {} + r + 1 (eth0)\n"
                     "  check links:               geotrain emu linktest {} --cluster {}\n"
                     "  take it down:              geotrain emu down {}\n",
                     r.cluster, r.ranks, r.subnet, r.backend, kNamespacePrefix, r.cluster,
                     r.subnet.substr(0, r.subnet.find('/')), r.scenario, r.cluster, r.cluster);
}

bool ClusterStatus::healthy() const {
  for (const auto& r : ranks)
    if (!r.namespace_present || !r.delayer_problem.empty()) return false;
  return record.complete;
}

std::vector<ClusterStatus> cluster_status(const StateStore& store) {
  std::vector<ClusterStatus> out;
  std::set<std::string> known;
  for (const auto& record : store.load_all()) {
    ClusterStatus st{record, {}};
    known.insert(record.cluster);
    for (const auto& ns : record.namespaces) {
      RankHealth h{ns, namespace_exists(ns), ""};
      for (const auto& d : record.delayers)
        if (d.netns == ns && h.namespace_present) {
          h.delayer_problem = delayer_health(ns, d.pid, queues_of(d.pid));
        }
      st.ranks.push_back(h);
    }
    out.push_back(st);
  }
  // Namespaces without a record: leftovers of a geotrain killed before it wrote one.
  for (const auto& ns : list_namespaces(kNamespacePrefix)) {
    const std::string rest = ns.substr(std::string(kNamespacePrefix).size());
    const std::string cluster = rest.substr(0, rest.find('-'));
    if (known.insert(cluster).second) {
      ClusterStatus st;
      st.record.cluster = cluster;
      out.push_back(st);
    }
  }
  return out;
}

}  // namespace geotrain::emu
