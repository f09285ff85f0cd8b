#pragma once
// Internals of validate_program (program_validation.hpp), split by concern: structural checks
// (program_validation.cpp), payloads (program_payloads.cpp) and the abstract execution that
// finds deadlocks (program_deadlock.cpp).
#include <string>
#include <vector>

#include "sim/program/program.hpp"

namespace geotrain::detail {

// Collects problem lines, keeping the report readable when a Program is badly broken.
class Problems {
 public:
  void add(std::string line);
  // Put in front of every line added from now on ("iterations 4 to 7: ", "iteration 3: ").
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }
  bool empty() const { return lines_.empty() && dropped_ == 0; }
  std::vector<std::string> lines() const;

 private:
  static constexpr std::size_t kMax = 60;
  std::vector<std::string> lines_;
  std::size_t dropped_ = 0;
  std::string prefix_;
};

// "rank 3 op 7 'fwd s1 mb2'"
std::string op_where(const Program& p, int rank, int index);
// "send to 4 tag 2 (1.5e+06 B)", "allreduce on group 1 'dp s0'", ...
std::string op_summary(const Program& p, const Op& op);

// Payloads (program_payloads.cpp): a Send/Recv's payload and micro-batch go together
// (activations name their micro-batch, nothing else does, the pseudo-gradient is never sent
// point to point); collectives carry gradients, weights or the pseudo-gradient, dynamic ops
// weights or the pseudo-gradient.
void check_transfer_payload(const Program& p, int r, int i, Payload payload, int micro_batch,
                            Problems& out);
void check_averaged_payload(const Program& p, int r, int i, Payload payload, bool collective,
                            Problems& out);

// A compressed collective (program_compression_checks.cpp): fields in range, a ring
// all-reduce, blocking, with its codec ops (compute, kind other) right before and after it.
void check_compression(const Program& p, int r, int i, const CollectiveOp& c, Problems& out);

// Abstract execution with rendezvous semantics; adds one line per stuck rank.
void check_deadlock(const Program& p, Problems& problems);

}  // namespace geotrain::detail
