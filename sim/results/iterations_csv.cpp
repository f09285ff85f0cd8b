#include "sim/results/iterations_csv.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <cmath>
#include <string>

namespace geotrain::results {

void write_iterations_csv(const std::vector<IterationRow>& rows, std::ostream& out) {
  out << "step,time_s,loss,tokens_per_s,bytes\n";
  // Times are measured to the nanosecond; loss and throughput keep the digits that mean something.
  for (const auto& s : rows)
    fmt::print(out, "{},{},{},{},{}\n", s.step, fmt::format("{:.9f}", s.time_s),
               std::isnan(s.loss) ? "" : fmt::format("{:.9g}", s.loss), fmt::format("{:.6g}", s.tokens_per_s),
               s.bytes < 0 ? "" : fmt::format("{}", s.bytes));
}

}  // namespace geotrain::results
