#pragma once
// The one definition of a quantile in geotrain: linear interpolation between the order
// statistics (Hyndman and Fan's type 7, numpy's default). The simulator draws compute times
// with it (sim/workload/compute_sampler.hpp) and compare judges spreads with it
// (sim/compare/error_stats.hpp), so a sampled quantile and a judged one mean the same thing.
#include <vector>

namespace geotrain {

// q in [0, 1] (clamped) of values already sorted ascending: position q x (n - 1), interpolated
// between its neighbours. 0 for no values.
double sorted_quantile(const std::vector<double>& sorted, double q);

}  // namespace geotrain
