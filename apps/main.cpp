// geotrain: simulate, schedule and emulate decentralized training from one scenario file.
#include <fmt/format.h>

#include <cstdio>

#include "apps/commands.hpp"
#include "sim/common/data_dir.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"

int main(int argc, char** argv) {
  using namespace geotrain;
  CLI::App app{"geotrain: predict, schedule and emulate decentralized training over slow, "
               "uneven networks"};
  app.require_subcommand(1);
  // First line: the version alone (real/ compares it across hosts). Second: the data folder, which
  // tells an installed geotrain (share/geotrain) from one run in its build tree.
  app.set_version_flag("--version", fmt::format("{}\nscenarios and plots: {}", GEOTRAIN_VERSION, data_dir()));
  std::string log_spec;
  app.add_option("--log", log_spec, "log thresholds, e.g. 'info' or 'sim.engine:debug,emu:info'");

  cli::Action action;
  cli::add_check_command(app, action);
  cli::add_devices_command(app, action);
  cli::add_topology_command(app, action);
  cli::add_simulate_command(app, action);
  cli::add_bench_command(app, action);
  cli::add_schedule_command(app, action);
  cli::add_emulate_command(app, action);
  cli::add_profile_command(app, action);
  cli::add_compare_command(app, action);
  cli::add_validate_command(app, action);
  cli::add_plot_command(app, action);
  cli::add_emu_command(app, action);
  cli::add_sweep_command(app, action);
  cli::add_real_command(app, action);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "geotrain: %s (see 'geotrain --help')\n", e.what());
    return 2;
  }
  try {
    if (!log_spec.empty()) log::configure(log_spec);
    return action ? action() : 2;
  } catch (const InputError& e) {
    for (const auto& line : e.problems()) std::fprintf(stderr, "%s\n", line.c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "geotrain: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geotrain: internal error: %s\n", e.what());
    return 1;
  }
}
