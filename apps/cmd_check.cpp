// geotrain check <scenario>: validate and print a normalized summary. Exit 0 or 2.
#include <fmt/format.h>

#include <memory>

#include "apps/commands.hpp"
#include "apps/scenario_summary.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace geotrain::cli {

void add_check_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("check", "validate a scenario and print a normalized summary");
  auto file = std::make_shared<std::string>();
  auto sets = std::make_shared<std::vector<std::string>>();
  cmd->add_option("scenario", *file, "scenario YAML file")->required();
  cmd->add_option("--set", *sets, "override a scenario key: key.path=value (repeatable)");
  cmd->callback([&action, file, sets] {
    action = [file, sets] {
      const Scenario s = load_scenario(*file, *sets);
      fmt::print("{}ok\n", scenario_summary(s));
      return 0;
    };
  });
}

}  // namespace geotrain::cli
