// geotrain profile <scenario> [--device cpu|cuda] [--threads N] [--repeat K] [--warmup W]
//                             [--out FILE] [--set key=value ...]
// Measures the scenario's Compute ops on this machine before any run (emu/profile) and writes
// the compute profile `simulate` reads (simulation.compute_profile).
#include <fmt/format.h>

#include <memory>

#include "apps/commands.hpp"
#include "emu/profile/profile_run.hpp"

namespace geotrain::cli {

void add_profile_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("profile", "measure the scenario's Compute ops on this machine (a compute "
                                            "profile for simulate, made before any run)");
  auto o = std::make_shared<profile::ProfileOptions>();
  cmd->add_option("scenario", o->scenario_path, "scenario YAML file")->required();
  cmd->add_option("--device", o->device, "cpu, or cuda (the worker's GPU)")->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_option("--threads", o->threads, "torch intra-op threads (default: emulation.torch_threads)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--repeat", o->repeat, "timed runs of each op (default 10)")->check(CLI::Range(1, 10000));
  cmd->add_option("--warmup", o->warmup, "untimed runs before them (default 2)")->check(CLI::Range(0, 10000));
  cmd->add_option("--out", o->out, "the profile file (default: results/<scenario>/profile/<NNN>/compute_profile.json)");
  cmd->add_option("--results", o->results, "results root for the default run directory");
  cmd->add_option("--worker", o->worker, "geotrain-worker executable (default: $GEOTRAIN_WORKER, or next to geotrain)");
  cmd->add_option("--set", o->sets, "override a scenario key: key.path=value (repeatable)");
  cmd->callback([&action, o] {
    action = [o] {
      const auto r = profile::run_profile(*o);
      fmt::print("{} op(s) of {} stage(s) profiled in {:.1f} s\nprofile: {}\n", r.ops, r.stages, r.wall_s, r.path);
      return 0;
    };
  });
}

}  // namespace geotrain::cli
