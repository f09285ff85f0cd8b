// geotrain emulate <scenario>: real LibTorch training on the emulated network (emu/launch/).
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "apps/commands.hpp"
#include "emu/launch/emulate.hpp"

namespace geotrain::cli {

namespace {

struct EmulateArgs {
  emu::EmulateOptions options;
  std::string backend;
};

int run_emulate(EmulateArgs& a) {
  auto& o = a.options;
  if (a.backend == "netem") o.backend = DelayBackend::netem;
  if (a.backend == "nfqueue") o.backend = DelayBackend::nfqueue;
  if (a.backend == "auto") o.backend = DelayBackend::auto_detect;
  o.on_line = [](const std::string& line) {
    fmt::print("{}\n", line);
    std::fflush(stdout);
  };
  const emu::EmulateResult r = emu::run_emulation(o);
  const char* bytes = !r.bytes_counted ? "bytes not counted (Gloo's own collectives)"
                      : !r.bytes_fixed ? "bytes decided at run time (per round in dynamic.csv)"
                      : r.bytes_match  ? "bytes match the Program's"
                                       : "bytes DO NOT match the Program's";
  fmt::print("median iteration {:.3f} s, {:.0f} tokens/s, {}, {:.1f} s in all; wrote {}\n",
             r.iteration_time_s, r.tokens_per_s, bytes, r.wall_s, r.dir);
  return 0;
}

}  // namespace

void add_emulate_command(CLI::App& app, Action& action) {
  auto a = std::make_shared<EmulateArgs>();
  auto& o = a->options;
  auto* cmd = app.add_subcommand("emulate", "train for real (LibTorch workers) on the emulated network of a scenario");
  cmd->add_option("scenario", o.scenario_path, "scenario YAML file")->required();
  cmd->add_option("--steps", o.steps, "training iterations (default: training.steps)")
      ->check(CLI::Range(1, 100'000'000));  // the range of training.steps
  cmd->add_option("--out", o.out, "run directory (default: results/<scenario>/emu/<NNN>)");
  cmd->add_option("--results", o.results_root, "results root for the default run directory");
  cmd->add_option("--cluster", o.cluster, "use this running `geotrain emu up` cluster instead of building one");
  cmd->add_option("--collectives", o.collectives,
                  "p2p | gloo | nccl (default: emulation.collectives; nccl needs device cuda)")
      ->check(CLI::IsMember({"p2p", "gloo", "nccl"}));
  cmd->add_option("--device", o.device, "cpu | cuda: where the workers train (default: emulation.device)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  cmd->add_flag("--unshaped", o.unshaped,
                "no namespaces, no shaping, no root: every worker on 127.0.0.1 in this namespace (links NOT "
                "shaped; for machines that allow no namespaces or tc)");
  cmd->add_option("--set", o.sets, "override a scenario key: key.path=value (repeatable)");
  cmd->add_option("--timeout", o.timeout_s, "seconds without any op starting before the run counts as hung")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--warmup", o.warmup,
                  "iterations left out of medians and the compute profile's medians (kept apart in it: "
                  "warmup_samples_s)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--delay-backend", a->backend, "auto | netem | nfqueue (default: emulation.delay_backend)")
      ->check(CLI::IsMember({"auto", "netem", "nfqueue"}));
  cmd->add_option("--linktest-pairs", o.linktest_pairs, "links checked before the run: all | sample:K");
  cmd->add_flag("--linktest-advisory", o.linktest_advisory,
                "check links first but run even if some are off (reported in the log and manifest.json)");
  cmd->add_flag("--skip-linktest", o.skip_linktest, "do not check links first (debugging only)");
  cmd->add_option("--worker", o.worker, "geotrain-worker executable (default: $GEOTRAIN_WORKER or next to geotrain)");
  cmd->callback([&action, a] { action = [a] { return run_emulate(*a); }; });
}

}  // namespace geotrain::cli
