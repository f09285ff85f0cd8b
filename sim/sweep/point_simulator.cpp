#include "sim/sweep/point_simulator.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>

#include "sim/common/error.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scheduler/scheduler.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace geotrain::sweep {

namespace {

std::string base_dir_of(const std::string& path) {
  return std::filesystem::path(path).parent_path().string();
}

std::string joined(const std::vector<std::string>& lines) {
  return fmt::format("{}", fmt::join(lines, "; "));
}

}  // namespace

std::vector<std::string> resolve_auto_replicas(const std::string& base_text,
                                               const std::string& base_path,
                                               const std::vector<std::string>& sets) {
  const std::string prefix = "strategy=";
  if (sets.empty() || sets.back().rfind(prefix, 0) != 0) return sets;
  YAML::Node block = YAML::Load(sets.back().substr(prefix.size()));
  if (!block.IsMap() || !block["replicas"].IsScalar() || block["replicas"].Scalar() != "auto")
    return sets;
  // ps-sharded has no shape of its own: the device count comes out of the point's other keys.
  std::vector<std::string> probe(sets.begin(), sets.end() - 1);
  probe.push_back("strategy={name: ps-sharded}");
  const Scenario s = parse_scenario(base_text, base_path, base_dir_of(base_path), probe);
  const long devices = static_cast<long>(s.devices.size());
  const long stages = block["stages"].IsScalar() ? block["stages"].as<long>(1) : 1;
  if (stages < 1 || devices % stages != 0)
    throw InputError(
        fmt::format("strategy.replicas = 'auto': {} devices cannot be split into {} stages "
                    "(expected a device count divisible by the stages)",
                    devices, stages));
  block["replicas"] = devices / stages;
  YAML::Emitter out;
  out << YAML::Flow << block;
  std::vector<std::string> resolved = sets;
  resolved.back() = prefix + out.c_str();
  return resolved;
}

PointResult simulate_point(const SweepSpec& spec, const std::string& base_text,
                           const PointRun& run) {
  PointResult r;
  r.hash = run.hash;
  r.point = run.point;
  r.strategy = spec.strategies[run.strategy].label;
  r.values = run.values;
  try {
    const auto sets = resolve_auto_replicas(base_text, spec.base_path, run.sets);
    const Scenario s = parse_scenario(base_text, spec.base_path, base_dir_of(spec.base_path), sets);
    std::optional<Assignment> scheduled;
    if (s.placement.kind == PlacementKind::scheduler) scheduled = schedule_assignment(s);
    const Program program = build_program(s, scheduled ? &*scheduled : nullptr);
    const auto result = engine::simulate(s, program);
    const double steps_per_iteration =
        s.training.global_batch > 0 ? program.sequences_per_iteration / s.training.global_batch : 1;
    const double bytes = result.p2p_bytes + result.collective_bytes_total + result.dynamic_bytes;
    r.ok = true;
    r.iteration_time_s = result.iteration_time_s;
    r.tokens_per_s = result.tokens_per_s;
    r.samples_per_s = result.samples_per_s;
    r.bytes_per_step = result.iterations > 0 ? bytes / result.iterations / steps_per_iteration : 0;
    double compute = 0;
    for (const auto& rank : result.ranks) compute += rank.compute_s;
    r.compute_share = result.ranks.empty() || result.iteration_time_s <= 0
                          ? 0
                          : compute / static_cast<double>(result.ranks.size()) / result.iteration_time_s;
  } catch (const InputError& e) {
    r.reason = joined(e.problems());
  } catch (const std::exception& e) {
    r.reason = std::string("the simulation failed: ") + e.what();
  }
  return r;
}

}  // namespace geotrain::sweep
