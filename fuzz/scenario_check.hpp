#pragma once
// One fuzz input, end to end through the torch- and SimGrid-free core: YAML text -> Scenario
// (parse, bind, validate) -> Program (placement, strategy builder, validate_program). Shared by
// the libFuzzer target (fuzz_scenario.cpp) and the regression test that replays the inputs it
// once crashed on (tests/core/fuzz_regressions_test.cpp).
#include <string>

namespace geotrain::fuzz {

enum class Outcome { rejected, loaded, built };

// Returns how far the text got. Expected refusals (ScenarioError, InputError, with well-formed
// message lines) are outcomes; everything else escapes: a geotrain::Error from validate_program
// (a builder made a broken Program from a valid scenario), std::logic_error for a malformed
// message, or any other exception. base_dir resolves file names the text mentions.
Outcome check_scenario_text(const std::string& text, const std::string& base_dir);

}  // namespace geotrain::fuzz
