#include "emu/worker/fragment_outer_state.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/program/compression.hpp"

namespace geotrain {

FragmentOuterState::FragmentOuterState(const std::vector<Op>& ops, const OuterStep& outer, StageState& state,
                                       int rank)
    : state_(state), outer_(outer), rank_(rank), role_(ops.size(), Role::none), range_(ops.size()) {
  const auto fail = [&](std::size_t i, const std::string& why) {
    throw InputError(fmt::format("Program rank {} op {} ('{}'): {} (a fragmented outer step: each "
                                 "fragment's pseudo-gradient op, its collective, its outer_optimizer op "
                                 "and the merge right after it)", rank, i, ops[i].label, why));
  };
  bool pending = false;  // a pseudo-gradient op whose collective has not come yet
  Range last{0, 0};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (const auto* c = ops[i].as<CollectiveOp>(); c && c->payload == Payload::pseudo_gradient) {
      if (!pending) fail(i, "a pseudo-gradient collective without a pseudo-gradient op before it");
      role_[i] = Role::exchange;
      range_[i] = last;
      pending = false;
      continue;
    }
    if (ops[i].as<DynamicOp>()) fail(i, "a dynamic op (the worker averages fragments with collectives only)");
    const auto* c = ops[i].as<ComputeOp>();
    if (!c || c->micro_batch >= 0) continue;
    const Range r = state_.model().flat_range(c->layer_begin, c->layer_end);
    if (c->kind == ComputeKind::outer_optimizer) {
      role_[i] = Role::outer_step;
    } else if (c->kind == ComputeKind::other && codec_role(ops, i) == CodecRole::none) {
      const auto* before = i > 0 ? ops[i - 1].as<ComputeOp>() : nullptr;
      if (before && before->kind == ComputeKind::outer_optimizer) {
        role_[i] = Role::merge;
      } else {
        if (pending) fail(i, "a second pseudo-gradient op before the first one's collective");
        role_[i] = Role::pseudo_gradient;
        pending = true;
        last = r;
      }
    } else {
      continue;
    }
    range_[i] = r;
  }
  global_ = state_.flat_weights().clone();
  momentum_ = torch::zeros_like(global_);
}

void FragmentOuterState::run(int i) {
  torch::NoGradGuard no_grad;
  const auto [offset, elements] = range_.at(static_cast<std::size_t>(i));
  auto global = global_.narrow(0, offset, elements);
  switch (role_.at(static_cast<std::size_t>(i))) {
    case Role::pseudo_gradient:
      buffers_[offset] = pseudo_gradient(offset, elements);
      return;
    case Role::outer_step: {
      const auto it = buffers_.find(offset);
      if (it == buffers_.end())
        throw InputError(fmt::format("Program rank {} op {}: an outer step for weights [{}, {}) before their "
                                     "pseudo-gradient", rank_, i, offset, offset + elements));
      const auto& g = it->second;  // averaged by the collective the Program waited for
      auto b = momentum_.narrow(0, offset, elements);
      b.mul_(outer_.momentum).add_(g);
      global.sub_(outer_.learning_rate * (g + outer_.momentum * b));
      buffers_.erase(it);
      return;
    }
    case Role::merge:
      state_.set_weights_slice(offset, outer_.mixing * state_.weights_slice(offset, elements) +
                                           (1 - outer_.mixing) * global);
      return;
    case Role::exchange:
    case Role::none:
      break;
  }
  throw Error(fmt::format("rank {} op {}: not a fragment's compute op", rank_, i));
}

void FragmentOuterState::prepare(int i) {
  const auto [offset, elements] = range_.at(static_cast<std::size_t>(i));
  if (role_.at(static_cast<std::size_t>(i)) == Role::outer_step && !buffers_.count(offset))
    buffers_[offset] = pseudo_gradient(offset, elements);
}

torch::Tensor FragmentOuterState::pseudo_gradient(std::int64_t offset, std::int64_t elements) {
  return global_.narrow(0, offset, elements) - state_.weights_slice(offset, elements);
}

std::unique_ptr<FragmentOuterState> FragmentOuterState::for_program(const Program& program, int rank,
                                                                     StageState& state) {
  const auto& outer = program.outer_step;
  if (!outer || !outer->fragmented) return nullptr;
  return std::make_unique<FragmentOuterState>(program.ranks.at(static_cast<std::size_t>(rank)), *outer, state, rank);
}

torch::Tensor FragmentOuterState::buffer_of(int i) const {
  const auto at = static_cast<std::size_t>(i);
  const auto it = role_.at(at) == Role::exchange ? buffers_.find(range_[at].first) : buffers_.end();
  if (it == buffers_.end())
    throw InputError(fmt::format("Program rank {} op {}: a pseudo-gradient collective before its fragment's "
                                 "pseudo-gradient was computed", rank_, i));
  return it->second;
}

}  // namespace geotrain
