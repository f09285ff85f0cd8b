// geotrain profile <scenario> [--device cpu|cuda] [--threads N] [--repeat K] [--warmup W] [--min-seconds S]
//                             [--concurrent K] [--out FILE] [--device-entry NAME [--like DEVICE]] [--set key=value ...]
// Measures the scenario's Compute ops on this machine before any run (emu/profile) and writes
// the compute profile `simulate` reads (simulation.compute_profile); with --device-entry also the
// device's efficiency against a device library entry, as a scenario profile (docs/devices.md).
#include <fmt/format.h>

#include <memory>

#include "apps/commands.hpp"
#include "emu/profile/profile_run.hpp"
#include "sim/common/units.hpp"

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
  cmd->add_option("--min-seconds", o->min_seconds,
                  "time more rounds (every op of a stage once each) until a stage's have taken this long (default 0)")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_option("--concurrent", o->concurrent,
                  "workers timing the ops at once, their samples pooled (default 1; the host's cores to profile "
                  "under a run's load)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--out", o->out, "the profile file (default: results/<scenario>/profile/<NNN>/compute_profile.json)");
  cmd->add_option("--results", o->results, "results root for the default run directory");
  cmd->add_option("--worker", o->worker, "geotrain-worker executable (default: $GEOTRAIN_WORKER, or next to geotrain)");
  cmd->add_option("--set", o->sets, "override a scenario key: key.path=value (repeatable)");
  auto* entry = cmd->add_option("--device-entry", o->device_entry,
                                "also measure this device's efficiency and write it as device profile NAME "
                                "(device_efficiency in the profile, device_profile.yaml next to it)");
  cmd->add_option("--like", o->like,
                  "the device library entry the efficiency is measured against (geotrain devices; default: the "
                  "scenario's first device's profile)")
      ->needs(entry);
  cmd->callback([&action, o] {
    action = [o] {
      const auto r = profile::run_profile(*o);
      fmt::print("{} op(s) of {} stage(s) profiled in {:.1f} s\nprofile: {}\n", r.ops, r.stages, r.wall_s, r.path);
      if (const auto& e = r.efficiency)
        fmt::print("device entry {}: {} on {} forward/backward op(s) = efficiency {:.4g} of {}'s {} peak ({})\n"
                   "device profile: {}\n",
                   e->profile, units::format_flops(e->achieved_flops), e->ops, e->efficiency, e->like, e->dtype,
                   units::format_flops(e->peak_flops), r.device_profile_path);
      return 0;
    };
  });
}

}  // namespace geotrain::cli
