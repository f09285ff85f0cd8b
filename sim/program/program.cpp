#include "sim/program/program.hpp"

#include <algorithm>

#include "sim/common/overloaded.hpp"

namespace geotrain {

// The names are the ones the Program JSON, traces and labels use: keep them stable.
const char* to_string(ComputeKind k) {
  switch (k) {
    case ComputeKind::forward:
      return "forward";
    case ComputeKind::backward:
      return "backward";
    case ComputeKind::optimizer:
      return "optimizer";
    case ComputeKind::other:
      return "other";
    case ComputeKind::outer_optimizer:
      return "outer_optimizer";
  }
  return "?";
}

const char* to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::allreduce:
      return "allreduce";
    case CollectiveKind::reduce_scatter:
      return "reduce-scatter";
    case CollectiveKind::allgather:
      return "allgather";
    case CollectiveKind::broadcast:
      return "broadcast";
    case CollectiveKind::gather:
      return "gather";
    case CollectiveKind::scatter:
      return "scatter";
    case CollectiveKind::reduce:
      return "reduce";
  }
  return "?";
}

const char* to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::ring:
      return "ring";
    case CollectiveAlgorithm::tree:
      return "tree";
    case CollectiveAlgorithm::halving_doubling:
      return "halving-doubling";
    case CollectiveAlgorithm::direct:
      return "direct";
    case CollectiveAlgorithm::library:
      return "library";
    case CollectiveAlgorithm::butterfly:
      return "butterfly";
  }
  return "?";
}

const char* to_string(const DynamicRule& r) {
  return std::visit(Overloaded{[](const PartialReduceRule&) { return "partial-reduce"; },
                               [](const GossipRule&) { return "gossip"; }},
                    r);
}

const char* rule_key(const DynamicRule& r) {
  return std::visit(Overloaded{[](const PartialReduceRule&) { return "partial_reduce"; },
                               [](const GossipRule&) { return "gossip"; }},
                    r);
}

const char* op_type_name(const Op& op) {
  if (op.as<ComputeOp>()) return "compute";
  if (op.as<SendOp>()) return "send";
  if (op.as<RecvOp>()) return "recv";
  if (op.as<CollectiveOp>()) return "collective";
  if (op.as<WaitOp>()) return "wait";
  return "dynamic";
}

bool Op::active_in(int iteration) const {
  if (iterations.empty()) return true;
  return std::any_of(iterations.begin(), iterations.end(),
                     [&](const IterationRange& r) { return r.contains(iteration); });
}

std::vector<int> program_epochs(const Program& p) {
  std::vector<int> starts{0};
  int period = 1, last_periodic_begin = 0;
  for (const auto& ops : p.ranks)
    for (const auto& op : ops)
      for (const auto& r : op.iterations) {
        if (r.begin > 0) starts.push_back(r.begin);
        if (r.end > 0) starts.push_back(r.end);
        if (r.every > 1) {
          period = std::max(period, r.every);
          last_periodic_begin = std::max(last_periodic_begin, r.begin);
          for (int k = 0; k < r.every; ++k) starts.push_back(r.begin + k);
        }
      }
  // With one period d (program validation), the active sets repeat every d iterations once every
  // periodic range has begun: one period from there covers each of them (ends cut it short).
  if (period > 1)
    for (int k = 0; k < period; ++k) starts.push_back(last_periodic_begin + k);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  return starts;
}

int program_period(const Program& p) {
  int period = 1;
  for (const auto& ops : p.ranks)
    for (const auto& op : ops)
      for (const auto& r : op.iterations) period = std::max(period, r.every);
  return period;
}

bool has_iteration_ranges(const Program& p) {
  for (const auto& ops : p.ranks)
    for (const auto& op : ops)
      if (!op.iterations.empty()) return true;
  return false;
}

Program program_in_iteration(const Program& p, int iteration) {
  Program q = p;
  for (auto& ops : q.ranks)
    for (auto& op : ops) {
      if (!op.active_in(iteration)) {
        op.body = WaitOp{};
        op.nonblocking = false;
      }
      op.iterations.clear();
    }
  return q;
}

}  // namespace geotrain
