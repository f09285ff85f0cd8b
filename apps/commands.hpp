#pragma once
// Each sub-command lives in its own cmd_*.cpp: it declares its options on the CLI11 app and
// installs the action main() runs after parsing. Actions return the exit code; they throw
// InputError for bad input (main prints it and exits 2).
#include <CLI/CLI.hpp>
#include <functional>

namespace geotrain::cli {

using Action = std::function<int()>;

void add_check_command(CLI::App& app, Action& action);
// `geotrain devices` (apps/cmd_devices.cpp): the device library.
void add_devices_command(CLI::App& app, Action& action);
void add_topology_command(CLI::App& app, Action& action);
void add_simulate_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_schedule_command(CLI::App& app, Action& action);
void add_emulate_command(CLI::App& app, Action& action);
void add_compare_command(CLI::App& app, Action& action);
void add_profile_command(CLI::App& app, Action& action);
void add_validate_command(CLI::App& app, Action& action);
void add_plot_command(CLI::App& app, Action& action);
void add_emu_command(CLI::App& app, Action& action);
void add_sweep_command(CLI::App& app, Action& action);
void add_real_command(CLI::App& app, Action& action);
// `geotrain real apply / down / status` (cmd_real_apply.cpp), under the `real` command.
void add_real_apply_commands(CLI::App* real, Action& action);
// `geotrain real run` (apps/cmd_real_run.cpp), registered by add_real_command.
void add_real_run_command(CLI::App* real_cmd, Action& action);
// `geotrain real probe` (apps/cmd_real_probe.cpp): every host pair measured, a network section written.
void add_real_probe_command(CLI::App* real, Action& action);
// `geotrain emu guard`, hidden: the guardian of an owned cluster (emu/net/cluster_guard.hpp).
void add_emu_guard_command(CLI::App* emu_cmd, Action& action);

}  // namespace geotrain::cli
