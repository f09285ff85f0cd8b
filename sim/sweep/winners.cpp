#include "sim/sweep/winners.hpp"

namespace geotrain::sweep {

double effective_throughput(const SweepSpec& spec, const PointResult& r) {
  for (const auto& s : spec.strategies)
    if (s.label == r.strategy) return r.tokens_per_s * s.statistical_efficiency;
  return r.tokens_per_s;
}

std::vector<Standing> rank_point(const SweepSpec& spec,
                                 const std::vector<const PointResult*>& results) {
  std::vector<Standing> out(results.size());
  std::optional<std::size_t> best, second;
  auto score = [&](std::size_t i) { return effective_throughput(spec, *results[i]); };
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i] || !results[i]->ok) continue;
    if (!best || score(i) > score(*best)) {
      second = best;
      best = i;
    } else if (!second || score(i) > score(*second)) {
      second = i;
    }
  }
  if (!best) return out;
  const double top = score(*best);
  out[*best].winner = true;
  if (second && score(*second) > 0) out[*best].margin_to_runner_up = top / score(*second);
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i] && results[i]->ok && top > 0) out[i].relative_to_winner = score(i) / top;
  return out;
}

}  // namespace geotrain::sweep
