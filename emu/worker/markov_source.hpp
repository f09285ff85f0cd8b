#pragma once
// A synthetic language with a known entropy: a first-order Markov chain over the vocabulary,
// drawn from a seed. Each token has `successors` possible next tokens (always including v+1 so
// the chain is irreducible) with random probabilities. Sequences start from the stationary
// distribution, so every next-token prediction has the same best achievable cross-entropy: the
// entropy rate H = sum_v pi_v * H(P[v, .]) (nats). A model's loss can fall toward H, not below.
//
// Sequence i depends only on (seed, i), never on the number of workers: every executor that
// reads global sequence i sees the same tokens.
#include <cstdint>
#include <vector>

namespace geotrain {

class MarkovSource {
 public:
  MarkovSource(int vocab, int successors, std::uint64_t seed);

  double entropy_rate_nats() const { return entropy_rate_nats_; }
  const std::vector<double>& stationary() const { return stationary_; }
  // Probability of `next` after `token` (0 for tokens that are not successors).
  double probability(int token, int next) const;

  // `length` tokens of global sequence `index`.
  std::vector<std::int64_t> sequence(std::uint64_t index, int length) const;

 private:
  int draw(const double* cumulative, double u) const;

  int successors_;
  std::uint64_t seed_;
  std::vector<int> next_;          // vocab x successors
  std::vector<double> cumulative_;  // vocab x successors, running sums of probabilities
  std::vector<double> stationary_;
  std::vector<double> stationary_cumulative_;
  double entropy_rate_nats_ = 0;
};

}  // namespace geotrain
