#pragma once
// Error figures of predicted vs measured iteration times.
#include <vector>

namespace geotrain::compare {

// Signed relative error in percent: 100 (predicted - measured) / measured.
double error_pct(double predicted, double measured);

// Median (mean of the two middle values for an even count); 0 for none.
double median(std::vector<double> v);
// Arithmetic mean; 0 for none.
double mean(const std::vector<double>& v);
// Linear-interpolated quantile q in [0, 1]; 0 for none.
double quantile(std::vector<double> v, double q);

struct ErrorStats {
  int cases = 0;
  double median_abs_pct = 0;
  double mean_abs_pct = 0;
  double max_abs_pct = 0;
  int within_5_pct = 0;
  int within_15_pct = 0;
};

// Statistics of |error| over signed errors in percent.
ErrorStats error_stats(const std::vector<double>& errors_pct);

}  // namespace geotrain::compare
