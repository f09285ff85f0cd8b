// geotrain real run <scenario> --hosts FILE: the scenario's training run on the machines of a
// hosts file, over ssh (real/real_run.hpp, docs/real.md). Exit 0; 1 when the run fails (the
// message names host and rank); 2 for bad input (nothing started).
#include <fmt/format.h>

#include <memory>
#include <mutex>

#include "apps/commands.hpp"
#include "real/real_run.hpp"

namespace geotrain::cli {

void add_real_run_command(CLI::App* real, Action& action) {
  auto o = std::make_shared<real::RealRunOptions>();
  auto* run = real->add_subcommand("run", "run the scenario's training on the hosts over ssh and write "
                                          "results/<scenario>/real/<NNN>/ (compare reads it)");
  run->add_option("scenario", o->scenario_path, "scenario YAML file")->required();
  run->add_option("--hosts", o->hosts_path, "hosts YAML file (docs/real.md)")->required();
  run->add_option("--steps", o->steps, "training iterations (default: training.steps)")->check(CLI::PositiveNumber);
  run->add_option("--out", o->out, "run directory (default: <results>/<scenario>/real/<NNN>)");
  run->add_option("--results", o->results_root, "results root (default: results)");
  run->add_option("--set", o->sets, "override a scenario key: key.path=value (repeatable)");
  run->add_option("--master-port", o->master_port, "port of rank 0's store (default 29500)")->check(CLI::Range(1, 65535));
  run->add_option("--collectives", o->collectives, "p2p | gloo | nccl (default: emulation.collectives; nccl = p2p over "
                                                   "--backend nccl)")
      ->check(CLI::IsMember({"p2p", "gloo", "nccl"}));
  run->add_option("--backend", o->backend, "gloo (CPU) | nccl (GPUs: every host device: cuda; needs a CUDA LibTorch at "
                                           "build time) (default: nccl for collectives nccl, else gloo)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  run->callback([&action, o] {
    action = [o] {
      auto print_mutex = std::make_shared<std::mutex>();
      o->on_line = [print_mutex](const std::string& line) {
        std::lock_guard lock(*print_mutex);
        fmt::print(stderr, "{}\n", line);
      };
      const real::RealRunResult r = real::run_real(*o);
      fmt::print("real run: median iteration {:.4f} s, {:.0f} tokens/s, {:.1f} s wall\n", r.iteration_time_s,
                 r.tokens_per_s, r.wall_s);
      fmt::print("{}\n", r.dir);
      return 0;
    };
  });
}

}  // namespace geotrain::cli
