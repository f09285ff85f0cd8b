// geotrain topology <scenario> [--format json|csv] [--force]: the effective per-pair network.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "apps/commands.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/topology_export.hpp"

namespace geotrain::cli {

namespace {
// Beyond this a dense N x N dump is megabytes of text nobody reads by accident.
constexpr int kMaxDevicesWithoutForce = 512;
}  // namespace

void add_topology_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("topology", "write the effective per-pair network (delay, bandwidth)");
  struct Options {
    std::string file;
    std::string format = "json";
    bool force = false;
    std::vector<std::string> sets;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("scenario", o->file, "scenario YAML file")->required();
  cmd->add_option("--format", o->format, "json or csv")->check(CLI::IsMember({"json", "csv"}));
  cmd->add_flag("--force", o->force, "write large networks too");
  cmd->add_option("--set", o->sets, "override a scenario key: key.path=value (repeatable)");
  cmd->callback([&action, o] {
    action = [o] {
      const Scenario s = load_scenario(o->file, o->sets);
      const Topology t = s.effective_network();
      if (t.device_count() > kMaxDevicesWithoutForce && !o->force)
        throw InputError(fmt::format(
            "{}: {} devices make a {} x {} matrix (over {} devices needs --force)", o->file,
            t.device_count(), t.device_count(), t.device_count(), kMaxDevicesWithoutForce));
      if (o->format == "csv") write_topology_csv(s, t, std::cout);
      else write_topology_json(s, t, std::cout);
      return 0;
    };
  });
}

}  // namespace geotrain::cli
