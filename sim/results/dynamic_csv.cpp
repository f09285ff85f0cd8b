#include "sim/results/dynamic_csv.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace geotrain::results {

void write_dynamic_csv(const std::vector<DynamicRow>& rows, std::ostream& out) {
  // Executors record decisions as they happen (ranks interleaved); the file is rank by rank.
  // Sorted by pointer: a long gossip run has one row per rank and round, not copied again.
  std::vector<const DynamicRow*> order;
  order.reserve(rows.size());
  for (const auto& r : rows) order.push_back(&r);
  std::stable_sort(order.begin(), order.end(), [](const DynamicRow* a, const DynamicRow* b) {
    if (a->rank != b->rank) return a->rank < b->rank;
    return a->step != b->step ? a->step < b->step : a->op < b->op;
  });
  out << kDynamicCsvHeader;
  for (const DynamicRow* r : order)
    fmt::print(out, "{},{},{},{},{},{},{:.9f}\n", r->rank, r->step, r->op, r->rule, r->round,
               fmt::join(*r->members, ";"), r->decided_s);
}

double dynamic_csv_entries(const std::vector<DynamicRow>& rows) {
  double n = 0;
  for (const auto& r : rows) n += static_cast<double>(r.members->size());
  return n;
}

}  // namespace geotrain::results
