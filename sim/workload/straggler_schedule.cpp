#include "sim/workload/straggler_schedule.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/program/dynamic_rules.hpp"

namespace geotrain {

StragglerSchedule::StragglerSchedule(const StragglerSpec& spec) : spec_(spec) {
  if (!(spec.probability >= 0 && spec.probability <= 1) || !(spec.sleep_s >= 0))
    throw Error(fmt::format("stragglers: probability {} and sleep {} s (expected 0..1 and >= 0)",
                            spec.probability, spec.sleep_s));
}

double StragglerSchedule::draw_s(int rank, std::int64_t iteration, int op_index) const {
  if (!active()) return 0;
  const double u = unit_draw(spec_.seed, static_cast<std::uint64_t>(rank),
                             static_cast<std::uint64_t>(iteration),
                             static_cast<std::uint64_t>(op_index));
  return u < spec_.probability ? spec_.sleep_s : 0;
}

double StragglerSchedule::sleep_s(int rank, std::int64_t iteration, int op_index,
                                  const Op& op) const {
  const auto* c = op.as<ComputeOp>();
  if (!c || (c->kind != ComputeKind::forward && c->kind != ComputeKind::backward)) return 0;
  return draw_s(rank, iteration, op_index);
}

}  // namespace geotrain
