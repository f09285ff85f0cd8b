#include "emu/worker/markov_source.hpp"

#include <algorithm>
#include <cmath>

namespace geotrain {

namespace {

// SplitMix64 (Steele et al.): a tiny, portable generator so the language is the same everywhere
// (std:: distributions are implementation-defined).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace

MarkovSource::MarkovSource(int vocab, int successors, std::uint64_t seed)
    : successors_(successors), seed_(seed) {
  SplitMix64 rng{seed * 0x2545f4914f6cdd1dull + 1};
  const auto K = static_cast<std::size_t>(successors);
  next_.resize(static_cast<std::size_t>(vocab) * K);
  cumulative_.resize(next_.size());
  std::vector<double> p(K);
  for (int v = 0; v < vocab; ++v) {
    int* nx = &next_[static_cast<std::size_t>(v) * K];
    nx[0] = (v + 1) % vocab;
    for (std::size_t j = 1; j < K; ++j) {
      int cand;
      do cand = static_cast<int>(rng.next() % static_cast<std::uint64_t>(vocab));
      while (std::find(nx, nx + j, cand) != nx + j);
      nx[j] = cand;
    }
    double total = 0;
    for (auto& x : p) total += (x = 0.2 + rng.uniform());  // bounded away from 0
    double run = 0;
    for (std::size_t j = 0; j < K; ++j) cumulative_[v * K + j] = (run += p[j] / total);
    cumulative_[v * K + K - 1] = 1.0;
  }
  // Stationary distribution by lazy power iteration (converges for any irreducible chain).
  stationary_.assign(static_cast<std::size_t>(vocab), 1.0 / vocab);
  std::vector<double> step(stationary_.size());
  for (int it = 0; it < 100000; ++it) {
    std::fill(step.begin(), step.end(), 0.0);
    for (int v = 0; v < vocab; ++v)
      for (std::size_t j = 0; j < K; ++j)
        step[next_[v * K + j]] += stationary_[v] * probability(v, next_[v * K + j]);
    double change = 0;
    for (std::size_t v = 0; v < step.size(); ++v) {
      const double lazy = 0.5 * (stationary_[v] + step[v]);
      change += std::abs(lazy - stationary_[v]);
      stationary_[v] = lazy;
    }
    if (change < 1e-15) break;
  }
  double run = 0;
  for (double x : stationary_) stationary_cumulative_.push_back(run += x);
  stationary_cumulative_.back() = 1.0;
  for (int v = 0; v < vocab; ++v)
    for (std::size_t j = 0; j < K; ++j) {
      const double q = probability(v, next_[v * K + j]);
      entropy_rate_nats_ -= stationary_[v] * q * std::log(q);
    }
}

double MarkovSource::probability(int token, int next) const {
  const auto K = static_cast<std::size_t>(successors_);
  const std::size_t base = static_cast<std::size_t>(token) * K;
  for (std::size_t j = 0; j < K; ++j)
    if (next_[base + j] == next) return cumulative_[base + j] - (j ? cumulative_[base + j - 1] : 0.0);
  return 0;
}

int MarkovSource::draw(const double* cumulative, double u) const {
  int j = 0;
  while (cumulative[j] <= u) ++j;  // the last entry is exactly 1 > u
  return j;
}

std::vector<std::int64_t> MarkovSource::sequence(std::uint64_t index, int length) const {
  SplitMix64 rng{seed_ ^ (index * 0xd1342543de82ef95ull + 0x632be59bd9b4e019ull)};
  std::vector<std::int64_t> out(static_cast<std::size_t>(length));
  if (length == 0) return out;
  int v = draw(stationary_cumulative_.data(), rng.uniform());
  out[0] = v;
  const auto K = static_cast<std::size_t>(successors_);
  for (std::size_t i = 1; i < out.size(); ++i) {
    v = next_[static_cast<std::size_t>(v) * K + static_cast<std::size_t>(draw(&cumulative_[v * K], rng.uniform()))];
    out[i] = v;
  }
  return out;
}

}  // namespace geotrain
