#pragma once
// YAML -> typed Scenario. Every problem is reported at once, one line each, as
//   file:line: key.path = 'value': what is wrong (what was expected; did you mean ...)
// and thrown as ScenarioError. Nothing is written anywhere.
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace geotrain {

// overrides: "key.path=value" strings (the CLI's --set), applied before binding.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text; display_name is used in messages, base_dir resolves relative file names.
Scenario parse_scenario(const std::string& text, const std::string& display_name,
                        const std::string& base_dir,
                        const std::vector<std::string>& overrides = {});

}  // namespace geotrain
