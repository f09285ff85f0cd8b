#include "emu/worker/dynamic_ops.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "emu/worker/cluster.hpp"
#include "emu/worker/compute_device.hpp"
#include "emu/worker/warm_up.hpp"
#include "emu/worker/wire_types.hpp"
#include "sim/common/error.hpp"
#include "sim/common/overloaded.hpp"
#include "sim/program/collective_schedule.hpp"
#include "sim/program/dynamic_rules.hpp"

namespace geotrain {

namespace {

// Gloo tags of dynamic traffic, apart from the Program's tags and collective steps.
constexpr int kGossipTag = 1 << 20;
constexpr int kPartialReduceTag = 1 << 21;
constexpr int kWarmUpTag = 1 << 22;

}  // namespace

// Rank 0 hosts the store and, next to it, one coordinator per partial-reduce op of the Program
// (preduce_coordinator.hpp), whether or not it is a member of that op's group.
DynamicOps::DynamicOps(RankContext& ctx, StageState& state) : ctx_(ctx), state_(state) {
  if (ctx.rank() != 0) return;
  std::map<std::pair<GroupId, int>, const DynamicOp*> ops_of;  // every partial-reduce op, by (group, tag)
  for (const auto& ops : ctx_.job.program.ranks)
    for (const auto& op : ops)
      if (const auto* d = op.as<DynamicOp>(); d && std::holds_alternative<PartialReduceRule>(d->rule))
        ops_of.emplace(std::pair{d->group, d->tag}, d);
  for (const auto& [key, d] : ops_of) {
    const auto& ranks = ctx_.job.program.group(key.first).ranks;
    // Arrivals over the run: every member's runs of the op in the steps it is active in (a
    // group exists per membership epoch under churn, so members run it equally often).
    std::int64_t arrivals = 0;
    for (int r : ranks)
      for (const auto& op : ctx_.job.program.ranks[static_cast<std::size_t>(r)])
        if (const auto* x = op.as<DynamicOp>(); x && x->group == key.first && x->tag == key.second)
          for (int step = 0; step < ctx_.options.steps; ++step) arrivals += op.active_in(step) ? 1 : 0;
    coordinators_.push_back(std::make_unique<PreduceCoordinator>(
        ctx_.cluster, *d, static_cast<int>(ranks.size()), arrivals, full_sync_baton_));
  }
}

// Dynamic ops pick their peers at run time, so a pair may first talk in a measured step, on a
// connection that has never carried data: TCP slow start over a 250 ms RTT then costs seconds
// (AD-PSGD on DT-FM case 5: 1.9-6 s for a first 0.9 MB exchange, 0.5-0.7 s once the connection
// is warm). A long run pays that once per pair; an 8-step emulation would measure it every
// step. So before the first step every member exchanges one op-sized buffer (at most
// kWarmUpMaxBytes) with every other member of each dynamic group, as static Programs do in
// their (unmeasured) first iteration. The namespaces keep tcp_slow_start_after_idle = 0, so
// the windows stay open afterwards. Sends and Recvs are warmed the same way
// (TransferOps::warm_up_pairs); collectives' first iteration is their warm-up.
void DynamicOps::warm_up_groups() {
  std::map<GroupId, double> bytes;
  for (const auto& op : ctx_.ops)
    if (const auto* d = op.as<DynamicOp>()) bytes[d->group] = std::max(bytes[d->group], d->bytes);
  for (const auto& [group, size] : bytes) {
    const auto& ranks = ctx_.job.program.group(group).ranks;
    const int me = ctx_.cluster.position(group);
    std::map<int, double> each_peer;
    for (int peer = 0; peer < static_cast<int>(ranks.size()); ++peer)
      if (peer != me) each_peer[peer] = size;
    warm_up_exchange(ctx_.cluster.group(group), ctx_.cluster.transport(), ctx_.device.wire(), each_peer, each_peer,
                     kWarmUpTag, ctx_.cluster.timeout());
  }
}

DynamicOps::~DynamicOps() = default;

void DynamicOps::finish() {
  for (auto& c : coordinators_) c->finish();
}

double DynamicOps::run(int i, const DynamicOp& d) {
  const double expected = static_cast<double>(state_.parameter_count()) *
                          static_cast<double>(dtype_bytes(wire_dtype(ctx_.job, d.payload)));
  if (d.bytes != expected)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): averages {} bytes but the stage's "
                                 "{} parameters are {} bytes in {}",
                                 ctx_.rank(), i, ctx_.op(i).label, d.bytes,
                                 state_.parameter_count(), expected, dtype_name(wire_dtype(ctx_.job, d.payload))));
  torch::NoGradGuard no_grad;
  const bool pseudo = d.payload == Payload::pseudo_gradient;
  auto source = pseudo ? state_.flat_grad() : state_.flat_weights();
  auto wire = source.to(ctx_.device.wire(), scalar_type(wire_dtype(ctx_.job, d.payload))).contiguous();
  const double sent =
      std::visit(Overloaded{[&](const GossipRule& rule) { return gossip(i, d, rule, wire); },
                            [&](const PartialReduceRule&) { return partial_reduce(i, d, wire); }},
                 d.rule);
  if (pseudo) state_.flat_grad().copy_(wire);
  else state_.set_weights(wire.to(torch::kFloat32));
  return sent;
}

// AD-PSGD: this round's seeded partner (the same pairing on every member); both send their
// copy and average the two. Only the pair waits for each other.
double DynamicOps::gossip(int i, const DynamicOp& d, const GossipRule& rule, torch::Tensor& wire) {
  const auto& ranks = ctx_.job.program.group(d.group).ranks;
  const int members = static_cast<int>(ranks.size());
  const int pos = ctx_.cluster.position(d.group);
  const std::int64_t round = rounds_[{d.group, d.tag}]++;
  const int partner = gossip_pairing(rule.seed, round, members)[static_cast<std::size_t>(pos)];
  std::vector<int> together{ctx_.rank()};
  if (partner >= 0) together.push_back(ranks[static_cast<std::size_t>(partner)]);
  std::sort(together.begin(), together.end());
  ctx_.measurements.record_dynamic({ctx_.step, i, rule_key(d.rule), round, together, ctx_.cluster.now_s()});
  if (partner < 0) return 0;
  auto& pg = ctx_.cluster.group(d.group);
  auto in = torch::empty_like(wire);
  // recv before send: Gloo writes a pair's messages in order on one socket, and the partner may
  // only send once it has this rank's "ready to receive" notice. Posted after the send, that notice
  // would travel behind this rank's whole copy, and the two halves would run one after the other
  // (measured: 0.26 s for 0.88 MB each way on a 56 Mbit/s link, against 0.13 s concurrently).
  // (With NCCL the two go out as one group call: see P2PBatch.)
  P2PBatch batch(pg, ctx_.cluster.transport());
  batch.recv(in, partner, kGossipTag + d.tag);
  batch.send(wire, partner, kGossipTag + d.tag);
  batch.wait(ctx_.cluster.timeout());
  wire.add_(in).div_(2);
  return static_cast<double>(wire.nbytes());
}

// SD-Pipe / DiLoCo-with-timeout: the coordinator (preduce_coordinator.hpp) decides who is in
// this rank's window; those members ring-all-reduce (collective_schedule, the simulator's
// replay) on the group's process group and divide by their number. A lone member keeps its own.
double DynamicOps::partial_reduce(int i, const DynamicOp& d, torch::Tensor& wire) {
  const auto& ranks = ctx_.job.program.group(d.group).ranks;
  const int pos = ctx_.cluster.position(d.group);
  const std::int64_t round = rounds_[{d.group, d.tag}]++;
  const auto members = preduce_ready(ctx_.cluster.store(), preduce_prefix(d), pos, round);
  std::vector<int> together;
  for (int m : members) together.push_back(ranks[static_cast<std::size_t>(m)]);
  std::sort(together.begin(), together.end());
  ctx_.measurements.record_dynamic({ctx_.step, i, rule_key(d.rule), round, together, ctx_.cluster.now_s()});
  const auto me_it = std::find(members.begin(), members.end(), pos);
  if (me_it == members.end())
    throw Error(fmt::format("rank {} op {}: the partial-reduce decision ({}) leaves this rank out",
                            ctx_.rank(), i, fmt::join(members, " ")));
  const int n = static_cast<int>(members.size());
  if (n < 2) return 0;
  auto& pg = ctx_.cluster.group(d.group);
  const auto steps = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::ring, n,
                                         static_cast<int>(me_it - members.begin()), 0,
                                         static_cast<std::size_t>(wire.numel()));
  double sent = 0;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const int tag = kPartialReduceTag + d.tag * 4096 + static_cast<int>(s);
    P2PBatch batch(pg, ctx_.cluster.transport());
    std::vector<torch::Tensor> received;
    // Receives first: see run_schedule in collective_runner.cpp (a two-member window).
    for (const auto& t : steps[s].recvs) {
      received.push_back(torch::empty({static_cast<std::int64_t>(t.count)}, wire.options()));
      if (t.count > 0) batch.recv(received.back(), members[static_cast<std::size_t>(t.peer)], tag);
    }
    for (const auto& t : steps[s].sends) {
      if (t.count == 0) continue;
      auto chunk = wire.narrow(0, static_cast<std::int64_t>(t.offset), static_cast<std::int64_t>(t.count));
      sent += static_cast<double>(chunk.nbytes());
      batch.send(chunk, members[static_cast<std::size_t>(t.peer)], tag);
    }
    batch.wait(ctx_.cluster.timeout());
    for (std::size_t k = 0; k < received.size(); ++k) {
      const auto& t = steps[s].recvs[k];
      auto target = wire.narrow(0, static_cast<std::int64_t>(t.offset), static_cast<std::int64_t>(t.count));
      if (steps[s].reduce) target.add_(received[k]);
      else target.copy_(received[k]);
    }
  }
  wire.div_(n);
  return sent;
}

}  // namespace geotrain
