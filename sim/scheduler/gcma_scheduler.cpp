#include "sim/scheduler/gcma_scheduler.hpp"

#include <chrono>
#include <memory>

#include "sim/common/small_math.hpp"
#include "sim/scheduler/baseline_gain.hpp"
#include "sim/scheduler/cached_evaluator.hpp"
#include "sim/scheduler/crossover.hpp"
#include "sim/scheduler/cyclic_local_search.hpp"
#include "sim/scheduler/dtfm_class_gain.hpp"
#include "sim/scheduler/dtfm_gain.hpp"
#include "sim/scheduler/structured_seeds.hpp"

namespace geotrain {

SearchResult GcmaScheduler::run(const SearchOptions& o) const {
  const auto start = std::chrono::steady_clock::now();
  const int groups = model_.stages(), size = model_.replicas();
  const int total = o.population + o.trials;
  std::mt19937_64 rng(o.seed);

  std::vector<std::vector<int>> population;
  for (int i = 0; i < o.population; ++i) population.push_back(random_labels(groups, size, rng));
  // DT-FM's gain gets bandwidth-aware starting points in place of the last random ones (the
  // random draws stay the same, so the trials' draws do too); the baseline gain stays the
  // original's reference. Why: sim/scheduler/README.md, "Structured starting partitions".
  int seeded = 0;
  if (gain_ == Gain::dtfm && o.structured_seeds) {
    auto seeds = structured_seeds(model_);
    for (std::size_t k = 0; k < seeds.size() && k < population.size(); ++k, ++seeded)
      population[population.size() - 1 - k] = std::move(seeds[k]);
  }
  std::vector<double> score(at(o.population));
  parallel_for(o.population, o.threads, [&](int i) {
    score[at(i)] = model_.evaluate(model_.partition_of(population[at(i)])).total_cost_s;
  });

  SearchResult result;
  result.scheduler = gain_ == Gain::dtfm ? "gcma" : "baseline";
  result.structured_seeds = seeded;
  std::vector<int> best_labels;
  double best = 0;
  auto record = [&](const std::vector<int>& labels, double s) {
    if (best_labels.empty() || s < best) best = s, best_labels = labels;
    result.candidate_cost_s.push_back(s);
    result.best_cost_s.push_back(best);
  };
  for (int i = 0; i < o.population; ++i) record(population[at(i)], score[at(i)]);

  std::unique_ptr<GainRule> rule;
  // Same gains either way; the class form avoids the N x N matrix (dtfm_class_gain.hpp).
  if (gain_ == Gain::dtfm && model_.classes() > 0) rule = std::make_unique<DtfmClassGain>(model_);
  else if (gain_ == Gain::dtfm) rule = std::make_unique<DtfmGain>(model_);
  else rule = std::make_unique<BaselineGain>(model_);
  CyclicLocalSearch search(groups, model_.devices(), *rule);
  CachedEvaluator scorer(model_);
  for (int t = 0; t < o.trials && o.population > 0; ++t) {
    const int p1 = draw(rng, o.population), p2 = draw(rng, o.population);
    std::vector<int> child = five_point_crossover(population[at(p1)], population[at(p2)], groups, size, rng);
    search.run(child);
    const double s = scorer.total_cost_s(child);
    record(child, s);
    if (s <= score[at(p1)]) {
      const int worse = score[at(p1)] > score[at(p2)] ? p1 : p2;
      population[at(worse)] = std::move(child);
      score[at(worse)] = s;
    }
    if (o.progress && (t + 1) % 100 == 0) o.progress(o.population + t + 1, total, best);
  }

  const Partition chosen = model_.partition_of(best_labels);
  const CostBreakdown c = model_.evaluate(chosen);
  result.assignment = model_.realise(chosen, c);
  result.groups = result.assignment.stage_groups();
  result.cost = model_.evaluate_fixed(result.assignment);
  result.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace geotrain
