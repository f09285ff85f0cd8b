#include "fuzz/scenario_check.hpp"

#include <optional>
#include <stdexcept>

#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace geotrain::fuzz {

namespace {

constexpr const char* kDisplayName = "fuzz.yaml";

// The house format: every problem is one line naming the file. A message that breaks it is a
// bug the fuzzer should report like a crash.
void require_well_formed(const InputError& e, bool names_file) {
  if (e.problems().empty()) throw std::logic_error("InputError without any problem line");
  for (const auto& line : e.problems()) {
    if (line.find('\n') != std::string::npos)
      throw std::logic_error("problem spans several lines: " + line);
    if (names_file && line.rfind(kDisplayName, 0) != 0)
      throw std::logic_error("problem does not name the file: " + line);
  }
}

}  // namespace

Outcome check_scenario_text(const std::string& text, const std::string& base_dir) {
  std::optional<Scenario> scenario;
  try {
    scenario = parse_scenario(text, kDisplayName, base_dir);
  } catch (const ScenarioError& e) {
    require_well_formed(e, true);
    return Outcome::rejected;
  }
  // The scheduler library sits above the core and its search costs seconds per input.
  if (scenario->placement.kind == PlacementKind::scheduler) return Outcome::loaded;
  try {
    // build_program runs validate_program on what the builder made: the geotrain::Error it
    // throws for a broken Program is not an InputError, so it escapes.
    build_program(*scenario);
  } catch (const InputError& e) {
    // Refusals that need the strategy (e.g. halving-doubling on 6 ranks) come from here.
    require_well_formed(e, false);
    return Outcome::loaded;
  }
  return Outcome::built;
}

}  // namespace geotrain::fuzz
