#include "sim/compare/error_stats.hpp"

#include <algorithm>
#include <cmath>

#include "sim/common/quantile.hpp"

namespace geotrain::compare {

double error_pct(double predicted, double measured) {
  return measured > 0 ? 100.0 * (predicted - measured) / measured : 0.0;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return sorted_quantile(v, q);
}

double median(std::vector<double> v) { return quantile(std::move(v), 0.5); }

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

ErrorStats error_stats(const std::vector<double>& errors_pct) {
  ErrorStats s;
  std::vector<double> abs;
  for (double e : errors_pct) abs.push_back(std::fabs(e));
  s.cases = static_cast<int>(abs.size());
  if (abs.empty()) return s;
  s.median_abs_pct = median(abs);
  double sum = 0;
  for (double a : abs) {
    sum += a;
    s.max_abs_pct = std::max(s.max_abs_pct, a);
    s.within_5_pct += a <= 5 ? 1 : 0;
    s.within_15_pct += a <= 15 ? 1 : 0;
  }
  s.mean_abs_pct = sum / static_cast<double>(abs.size());
  return s;
}

}  // namespace geotrain::compare
