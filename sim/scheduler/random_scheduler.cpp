#include "sim/scheduler/random_scheduler.hpp"

#include <chrono>

namespace geotrain {

SearchResult RandomScheduler::run(const SearchOptions& o) const {
  const auto start = std::chrono::steady_clock::now();
  const int count = o.population + o.trials;
  std::mt19937_64 rng(o.seed);
  std::vector<Assignment> candidates;
  for (int i = 0; i < count; ++i)
    candidates.push_back(random_assignment(model_.stages(), model_.replicas(), rng()));
  std::vector<double> score(static_cast<std::size_t>(count));
  parallel_for(count, o.threads, [&](int i) {
    score[static_cast<std::size_t>(i)] = model_.evaluate_fixed(candidates[static_cast<std::size_t>(i)]).total_cost_s;
  });
  SearchResult result;
  result.scheduler = "random";
  std::size_t best = 0;
  for (std::size_t i = 0; i < score.size(); ++i) {
    if (score[i] < score[best]) best = i;
    result.candidate_cost_s.push_back(score[i]);
    result.best_cost_s.push_back(score[best]);
  }
  if (o.progress) o.progress(count, count, score.empty() ? 0 : score[best]);
  if (!candidates.empty()) {
    result.assignment = candidates[best];
    result.groups = result.assignment.stage_groups();
    result.cost = model_.evaluate_fixed(result.assignment);
  }
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace geotrain
