#include "emu/net/cluster_builder.hpp"

#include <ctime>
#include <set>

#include "emu/net/command_batches.hpp"
#include "emu/net/delayer_launcher.hpp"
#include "emu/net/interrupt.hpp"
#include "emu/net/netns_util.hpp"
#include "emu/net/process_runner.hpp"
#include "sim/common/log.hpp"

namespace geotrain::emu {

namespace {

constexpr const char* kLog = "emu.net";

std::string cluster_of_namespace(const std::string& ns) {
  // gt-<cluster>-<rank|hub>; cluster names contain no '-'.
  const std::string rest = ns.substr(std::string(kNamespacePrefix).size());
  return rest.substr(0, rest.find('-'));
}

void delete_namespaces(const std::vector<std::string>& namespaces) {
  if (namespaces.empty()) return;
  std::string lines;
  for (const auto& ns : namespaces) lines += "netns del " + ns + "\n";
  // -force: keep going past a namespace that is already gone.
  run_process({"ip", "-force", "-batch", "-"}, lines);
}

}  // namespace

ClusterBuilder::ClusterBuilder(const Plan& plan, const StateStore& store, std::string scenario_path,
                               const ProcessIdentity& builder)
    : plan_(plan), store_(store) {
  record_.owner = builder;
  record_.cluster = plan.layout.cluster();
  record_.scenario = std::move(scenario_path);
  record_.subnet = plan.layout.subnet().to_string();
  record_.ranks = plan.layout.ranks();
  record_.backend = backend_name(plan.backend);
  record_.created_unix_s = static_cast<long long>(std::time(nullptr));
  for (const auto& step : plan.steps)
    if (step.undo && step.undo->tool == Tool::ip && step.undo->args.size() == 3 &&
        step.undo->args[1] == "del")
      record_.namespaces.push_back(step.undo->args[2]);
}

ClusterBuilder::~ClusterBuilder() {
  if (!kept_) undo();
}

void ClusterBuilder::build() {
  // Written before anything exists: a kill -9 from here on leaves a record `down` can use.
  store_.save(record_);
  std::vector<const Step*> group;
  for (const Step& step : plan_.steps) {
    const bool alone = step.action.tool == Tool::delayer;
    if (!group.empty() && (alone || group.back()->action.tool != step.action.tool ||
                           group.back()->action.netns != step.action.netns)) {
      run_group(group);
      group.clear();
    }
    group.push_back(&step);
  }
  if (!group.empty()) run_group(group);
}

void ClusterBuilder::run_group(const std::vector<const Step*>& group) {
  throw_if_interrupted();
  const Command& first = group.front()->action;
  if (first.tool == Tool::delayer) {
    done_.push_back(group.front());  // before starting: a half-started delayer is still stopped
    const pid_t pid = start_delayer(first, store_);
    delayers_[first.netns] = pid;
    record_.delayers.push_back({first.netns, pid});
    store_.save(record_);
    return;
  }
  std::vector<Command> commands;
  for (const Step* s : group) commands.push_back(s->action);
  done_.insert(done_.end(), group.begin(), group.end());
  for (const Invocation& inv : batch_commands(commands)) {
    std::string shown = inv.commands.front().to_string();
    if (inv.commands.size() > 1) shown += fmt::format(" (and {} more in one batch)", inv.commands.size() - 1);
    run_checked(inv.argv, inv.stdin_text, shown);
  }
}

ClusterRecord ClusterBuilder::keep(Lifetime lifetime) {
  kept_ = true;
  record_.complete = true;
  if (lifetime == Lifetime::until_down) record_.owner.reset();
  store_.save(record_);
  return record_;
}

void ClusterBuilder::undo() {
  std::vector<std::string> namespaces;
  for (auto it = done_.rbegin(); it != done_.rend(); ++it) {
    const auto& u = (*it)->undo;
    if (!u) continue;
    if (u->tool == Tool::stop_delayer) {
      const auto found = delayers_.find(u->netns);
      if (found != delayers_.end()) stop_processes({found->second}, 2.0);
    } else if (u->tool == Tool::ip && u->args.size() == 3 && u->args[1] == "del") {
      namespaces.push_back(u->args[2]);
    } else {
      const Invocation inv = batch_commands({*u}).front();
      run_process(inv.argv, inv.stdin_text);
    }
  }
  // Anything else still running inside (a program a user started, a link-test thread's child).
  stop_processes(processes_of(namespaces, ""), 2.0);
  delete_namespaces(namespaces);
  store_.remove(record_.cluster);
  done_.clear();
  kept_ = true;
}

TeardownReport teardown_cluster(const std::string& cluster, const StateStore& store) {
  const std::string prefix = kNamespacePrefix + cluster + "-";
  std::set<std::string> names;
  for (const auto& ns : list_namespaces(prefix)) names.insert(ns);
  std::vector<pid_t> pids = processes_of({names.begin(), names.end()}, prefix);
  TeardownReport report;
  report.processes = stop_processes(pids, 2.0);
  std::vector<std::string> namespaces(names.begin(), names.end());
  delete_namespaces(namespaces);
  report.namespaces = static_cast<int>(namespaces.size()) - static_cast<int>(list_namespaces(prefix).size());
  store.remove(cluster);
  log::info(kLog, "cluster {}: stopped {} processes, deleted {} namespaces", cluster,
            report.processes, report.namespaces);
  return report;
}

TeardownReport teardown_all(const std::string& cluster_prefix, const StateStore& store) {
  std::set<std::string> clusters;
  for (const auto& r : store.load_all())
    if (r.cluster.rfind(cluster_prefix, 0) == 0) clusters.insert(r.cluster);
  for (const auto& ns : list_namespaces(kNamespacePrefix + cluster_prefix))
    clusters.insert(cluster_of_namespace(ns));
  TeardownReport total;
  for (const auto& c : clusters) {
    const TeardownReport r = teardown_cluster(c, store);
    total.namespaces += r.namespaces;
    total.processes += r.processes;
  }
  // Delayers whose namespace is already gone are found by their --tag alone.
  const auto orphans = processes_of({}, kNamespacePrefix + cluster_prefix);
  total.processes += stop_processes(orphans, 2.0);
  return total;
}

}  // namespace geotrain::emu
