#pragma once
// Streaming DiLoCo's outer state in the worker (OuterStep::fragmented, sim/program/program.hpp):
// per fragment (a layer range, a contiguous slice of the stage's flat weights) the global
// weights as of its last outer step, its outer momentum and its pseudo-gradient buffer. The
// buffer is the fragment's own, not the flat gradient: its all-reduce runs on the group's thread
// while the next inner steps write their gradients, and the two must not share a tensor.
//
// The ops it runs (their roles are found once, from the op order, as the OuterStep comment says):
//   pseudo-gradient  buffer = global - local           (Compute `other`, before the collective)
//   collective       averages the buffer in place      (TransferOps::collective_on)
//   outer step       b = mu b + g; global -= lr (g + mu b)   (Compute outer_optimizer)
//   merge            local = mixing x local + (1 - mixing) x global   (`other`, right after it)
// Every replica starts from the same weights (parameters are drawn from the run's seed and their
// names), so the global weights start equal everywhere and stay so: each outer step applies the
// same averaged buffer.
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "emu/worker/stage_state.hpp"
#include "sim/program/program.hpp"

namespace geotrain {

class FragmentOuterState {
 public:
  // Throws InputError naming the op when an op of the fragments' protocol is out of place.
  FragmentOuterState(const std::vector<Op>& ops, const OuterStep& outer, StageState& state, int rank);
  // Rank `rank`'s state when the Program's outer step is fragmented, else null.
  static std::unique_ptr<FragmentOuterState> for_program(const Program& program, int rank, StageState& state);

  // Whether Compute op `i` is one of the fragments' (pseudo-gradient, outer step, merge).
  bool runs(int i) const {
    const Role r = role_.at(static_cast<std::size_t>(i));
    return r != Role::none && r != Role::exchange;
  }
  void run(int i);
  // The buffer pseudo-gradient Collective `i` averages (computed by the op before it).
  torch::Tensor buffer_of(int i) const;
  // The fragment's first element in the flat weights, for a Collective `i` of the fragments'.
  std::int64_t offset_of(int i) const { return range_.at(static_cast<std::size_t>(i)).first; }
  // geotrain profile times ops one at a time, out of order: an outer step or merge needs its
  // fragment's buffer, computed here untimed.
  void prepare(int i);

 private:
  enum class Role { none, pseudo_gradient, exchange, outer_step, merge };
  using Range = std::pair<std::int64_t, std::int64_t>;  // offset, elements

  torch::Tensor pseudo_gradient(std::int64_t offset, std::int64_t elements);  // global - local

  StageState& state_;
  OuterStep outer_;
  int rank_;
  std::vector<Role> role_;    // per op
  std::vector<Range> range_;  // per op with a role
  torch::Tensor global_, momentum_;
  std::map<std::int64_t, torch::Tensor> buffers_;  // by the fragment's offset
};

}  // namespace geotrain
