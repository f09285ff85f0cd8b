// Interpreter: Dynamic ops (gossip, partial reduce) and DiLoCo's pseudo-gradient and outer step.
// What a Dynamic op averages (program.hpp): the stage's weights, or, between DiLoCo's
// pseudo-gradient op and its outer step, the pseudo-gradient (in the job's wire dtype).
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "emu/worker/interpreter.hpp"
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
// Warm-up exchanges stop at this size: enough to open the congestion window to the bandwidth-
// delay product of any scaled link here (25 Mbit/s x 0.5 s RTT = 1.6 MB) without spending
// minutes on a large model.
constexpr double kWarmUpMaxBytes = 16.0 * 1024 * 1024;

torch::ScalarType scalar_type(DType t) {
  return t == DType::fp32 ? torch::kFloat32 : t == DType::fp16 ? torch::kFloat16 : torch::kBFloat16;
}

using WorkPtr = c10::intrusive_ptr<c10d::Work>;

}  // namespace

Interpreter::~Interpreter() = default;

// Rank 0 hosts the store and, next to it, one coordinator per partial-reduce op of the Program
// (preduce_coordinator.hpp), whether or not it is a member of that op's group.
void Interpreter::start_coordinators() {
  if (options_.rank != 0) return;
  std::map<std::pair<GroupId, int>, const DynamicOp*> ops_of;  // every partial-reduce op, by (group, tag)
  for (const auto& ops : job_.program.ranks)
    for (const auto& op : ops)
      if (const auto* d = op.as<DynamicOp>(); d && std::holds_alternative<PartialReduceRule>(d->rule))
        ops_of.emplace(std::pair{d->group, d->tag}, d);
  for (const auto& [key, d] : ops_of) {
    const auto& ranks = job_.program.group(key.first).ranks;
    // Arrivals over the run: every member's runs of the op in the steps it is active in (a
    // group exists per membership epoch under churn, so members run it equally often).
    std::int64_t arrivals = 0;
    for (int r : ranks)
      for (const auto& op : job_.program.ranks[static_cast<std::size_t>(r)])
        if (const auto* x = op.as<DynamicOp>(); x && x->group == key.first && x->tag == key.second)
          for (int step = 0; step < options_.steps; ++step) arrivals += op.active_in(step) ? 1 : 0;
    coordinators_.push_back(std::make_unique<PreduceCoordinator>(
        cluster_, *d, static_cast<int>(ranks.size()), arrivals));
  }
}

// Dynamic ops pick their peers at run time, so a pair may first talk in a measured step, on a
// connection that has never carried data: TCP slow start over a 250 ms RTT then costs seconds
// (AD-PSGD on DT-FM case 5: 1.9-6 s for a first 0.9 MB exchange, 0.5-0.7 s once the connection
// is warm). A long run pays that once per pair; an 8-step emulation would measure it every
// step. So before the first step every member exchanges one op-sized buffer (at most
// kWarmUpMaxBytes) with every other member of each dynamic group, as static Programs do in
// their (unmeasured) first iteration. The namespaces keep tcp_slow_start_after_idle = 0, so
// the windows stay open afterwards. Static ops need nothing: their first iteration is warm-up.
void Interpreter::warm_up_dynamic_groups() {
  std::map<GroupId, double> bytes;
  for (const auto& op : ops_)
    if (const auto* d = op.as<DynamicOp>()) bytes[d->group] = std::max(bytes[d->group], d->bytes);
  for (const auto& [group, size] : bytes) {
    const auto& ranks = job_.program.group(group).ranks;
    const auto count = static_cast<std::int64_t>(std::min(size, kWarmUpMaxBytes) / sizeof(float));
    if (ranks.size() < 2 || count == 0) continue;
    auto& pg = cluster_.group(group);
    const int me = cluster_.position(group);
    std::vector<torch::Tensor> buffers;
    std::vector<WorkPtr> works;
    for (int peer = 0; peer < static_cast<int>(ranks.size()); ++peer) {
      if (peer == me) continue;
      std::vector<torch::Tensor> out{torch::zeros({count})}, in{torch::empty({count})};
      works.push_back(pg.recv(in, peer, kWarmUpTag));
      works.push_back(pg.send(out, peer, kWarmUpTag));
      buffers.insert(buffers.end(), {out[0], in[0]});
    }
    for (auto& w : works) w->wait(cluster_.timeout());
  }
}

void Interpreter::finish() {
  for (auto& c : coordinators_) c->finish();
}

// The pseudo-gradient travels in OuterStep's dtype; gradients and weights in the gradient dtype.
DType Interpreter::wire_dtype(Payload p) const {
  return p == Payload::pseudo_gradient ? job_.wire_dtype : job_.model.gradient_dtype;
}

torch::Tensor Interpreter::flat_weights() {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> parts;
  for (const auto& p : stage_.parameters()) parts.push_back(p.detach().reshape(-1));
  return torch::cat(parts);
}

void Interpreter::set_weights(const torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  if (flat.numel() != stage_.parameter_count())
    throw Error(fmt::format("rank {}: {} weights for a stage of {} parameters", options_.rank,
                            flat.numel(), stage_.parameter_count()));
  std::int64_t offset = 0;
  for (auto& p : stage_.parameters()) {
    p.detach().copy_(flat.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

torch::Tensor Interpreter::training_state() {
  torch::NoGradGuard no_grad;
  auto weights = flat_weights().to(torch::kFloat32);
  auto momentum = outer_momentum_.defined() ? outer_momentum_.to(torch::kFloat32)
                                            : torch::zeros_like(weights);
  return torch::cat({weights, momentum}).contiguous();
}

void Interpreter::load_training_state(const torch::Tensor& state) {
  torch::NoGradGuard no_grad;
  const std::int64_t n = stage_.parameter_count();
  set_weights(state.narrow(0, 0, n));
  outer_momentum_ = state.narrow(0, n, n).clone();
  round_start_ = flat_weights();  // the pseudo-gradient of this round starts from them
}

// DiLoCo: pseudo-gradient = weights at the start of the round - weights now, into the (zeroed)
// flat gradient buffer, where the averaging collective or Dynamic op takes it.
void Interpreter::pseudo_gradient() {
  stage_.flat_grad().copy_(round_start_ - flat_weights());
}

// DiLoCo's outer optimizer: Nesterov SGD (torch.optim.SGD(nesterov=True), dampening 0) on the
// averaged pseudo-gradient g, applied to the round's starting weights:
//   b = mu b + g;  w = w_start - lr (g + mu b).
void Interpreter::outer_step() {
  torch::NoGradGuard no_grad;
  auto& g = stage_.flat_grad();
  if (!outer_momentum_.defined()) outer_momentum_ = torch::zeros_like(g);
  outer_momentum_.mul_(job_.outer_momentum).add_(g);
  set_weights(round_start_ - job_.outer_lr * (g + job_.outer_momentum * outer_momentum_));
  g.zero_();
  grad_cursor_ = 0;
}

double Interpreter::dynamic(int i, const DynamicOp& d) {
  const double expected = static_cast<double>(stage_.parameter_count()) *
                          static_cast<double>(dtype_bytes(wire_dtype(d.payload)));
  if (d.bytes != expected)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): averages {} bytes but the stage's "
                                 "{} parameters are {} bytes in {}",
                                 options_.rank, i, ops_[static_cast<std::size_t>(i)].label, d.bytes,
                                 stage_.parameter_count(), expected, dtype_name(wire_dtype(d.payload))));
  torch::NoGradGuard no_grad;
  const bool pseudo = d.payload == Payload::pseudo_gradient;
  auto source = pseudo ? stage_.flat_grad() : flat_weights();
  auto wire = source.to(scalar_type(wire_dtype(d.payload))).contiguous();
  const double sent =
      std::visit(Overloaded{[&](const GossipRule& rule) { return gossip(i, d, rule, wire); },
                            [&](const PartialReduceRule&) { return partial_reduce(i, d, wire); }},
                 d.rule);
  if (pseudo) stage_.flat_grad().copy_(wire);
  else set_weights(wire.to(torch::kFloat32));
  return sent;
}

// AD-PSGD: this round's seeded partner (the same pairing on every member); both send their
// copy and average the two. Only the pair waits for each other.
double Interpreter::gossip(int i, const DynamicOp& d, const GossipRule& rule, torch::Tensor& wire) {
  const auto& ranks = job_.program.group(d.group).ranks;
  const int members = static_cast<int>(ranks.size());
  const int pos = cluster_.position(d.group);
  const std::int64_t round = dynamic_round_[{d.group, d.tag}]++;
  const int partner = gossip_pairing(rule.seed, round, members)[static_cast<std::size_t>(pos)];
  std::vector<int> together{options_.rank};
  if (partner >= 0) together.push_back(ranks[static_cast<std::size_t>(partner)]);
  std::sort(together.begin(), together.end());
  measurements_.record_dynamic({step_, i, "gossip", round, together, cluster_.now_s()});
  if (partner < 0) return 0;
  auto& pg = cluster_.group(d.group);
  std::vector<torch::Tensor> out{wire}, in{torch::empty_like(wire)};
  // recv before send: Gloo writes a pair's messages in order on one socket, and the partner may
  // only send once it has this rank's "ready to receive" notice. Posted after the send, that notice
  // would travel behind this rank's whole copy, and the two halves would run one after the other
  // (measured: 0.26 s for 0.88 MB each way on a 56 Mbit/s link, against 0.13 s concurrently).
  WorkPtr receiving = pg.recv(in, partner, kGossipTag + d.tag);
  std::vector<WorkPtr> works{receiving, pg.send(out, partner, kGossipTag + d.tag)};
  for (auto& w : works) w->wait(cluster_.timeout());
  wire.add_(in[0]).div_(2);
  return static_cast<double>(wire.nbytes());
}

// SD-Pipe / DiLoCo-with-timeout: the coordinator (preduce_coordinator.hpp) decides who is in
// this rank's window; those members ring-all-reduce (collective_schedule, the simulator's
// replay) on the group's process group and divide by their number. A lone member keeps its own.
double Interpreter::partial_reduce(int i, const DynamicOp& d, torch::Tensor& wire) {
  const auto& ranks = job_.program.group(d.group).ranks;
  const int pos = cluster_.position(d.group);
  const std::int64_t round = dynamic_round_[{d.group, d.tag}]++;
  const auto members = preduce_ready(cluster_.store(), preduce_prefix(d), pos, round);
  std::vector<int> together;
  for (int m : members) together.push_back(ranks[static_cast<std::size_t>(m)]);
  std::sort(together.begin(), together.end());
  measurements_.record_dynamic({step_, i, "partial_reduce", round, together, cluster_.now_s()});
  const auto me_it = std::find(members.begin(), members.end(), pos);
  if (me_it == members.end())
    throw Error(fmt::format("rank {} op {}: the partial-reduce decision ({}) leaves this rank out",
                            options_.rank, i, fmt::join(members, " ")));
  const int n = static_cast<int>(members.size());
  if (n < 2) return 0;
  auto& pg = cluster_.group(d.group);
  const auto steps = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::ring, n,
                                         static_cast<int>(me_it - members.begin()), 0,
                                         static_cast<std::size_t>(wire.numel()));
  double sent = 0;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    const int tag = kPartialReduceTag + d.tag * 4096 + static_cast<int>(s);
    std::vector<WorkPtr> works;
    std::vector<torch::Tensor> received;
    // Receives first: see run_schedule in collective_runner.cpp (a two-member window).
    for (const auto& t : steps[s].recvs) {
      std::vector<torch::Tensor> v{torch::empty({static_cast<std::int64_t>(t.count)}, wire.options())};
      received.push_back(v[0]);
      if (t.count > 0) works.push_back(pg.recv(v, members[static_cast<std::size_t>(t.peer)], tag));
    }
    for (const auto& t : steps[s].sends) {
      if (t.count == 0) continue;
      std::vector<torch::Tensor> v{wire.narrow(0, static_cast<std::int64_t>(t.offset), static_cast<std::int64_t>(t.count))};
      works.push_back(pg.send(v, members[static_cast<std::size_t>(t.peer)], tag));
      sent += static_cast<double>(v[0].nbytes());
    }
    for (auto& w : works) w->wait(cluster_.timeout());
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
