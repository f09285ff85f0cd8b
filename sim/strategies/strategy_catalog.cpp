#include "sim/strategies/strategy_catalog.hpp"

#include <fmt/format.h>

#include "sim/scenario/diagnostics.hpp"
#include "sim/scenario/value_range.hpp"

namespace geotrain {

namespace {

ParamDecl choice(std::string name, std::string def, std::vector<std::string> choices,
                 std::string help) {
  return {std::move(name), ParamKind::choice, ParamValue{def}, std::move(help), 0, 0,
          std::move(choices)};
}
ParamDecl integer(std::string name, std::int64_t def, double min, double max, std::string help) {
  return {std::move(name), ParamKind::integer, ParamValue{def}, std::move(help), min, max, {}};
}
// Sizes and durations carry their physical range (sim/scenario/value_range.hpp).
ParamDecl bytes(std::string name, double def, ValueRange r, std::string help) {
  return {std::move(name), ParamKind::bytes, ParamValue{def}, std::move(help), r.min, r.max, {}};
}
ParamDecl number(std::string name, double def, double min, double max, std::string help) {
  return {std::move(name), ParamKind::number, ParamValue{def}, std::move(help), min, max, {}};
}
ParamDecl duration(std::string name, double def_s, ValueRange r, std::string help) {
  return {
      std::move(name), ParamKind::duration, ParamValue{def_s}, std::move(help), r.min, r.max, {}};
}

// library: Gloo's own all-reduce (what LibTorch runs; sim/program/gloo_algorithms.hpp).
const std::vector<std::string> kCollectiveAlgorithms{"ring", "tree", "halving-doubling", "direct", "library"};

void data_parallel_check(const Scenario& s, Diagnostics& diag, int line) {
  const int n = participating_devices(s);
  if (s.training.global_batch > 0 && s.training.global_batch < n)
    diag.error(line, "training.global_batch",
               fmt::format("{} sequences cannot be split over {} data-parallel replicas",
                           s.training.global_batch, n));
}

void pipeline_check(const Scenario& s, Diagnostics& diag, int line) {
  const auto stages = s.strategy.integer("stages");
  const auto replicas = s.strategy.integer("replicas");
  const int n = participating_devices(s);
  if (stages * replicas != n)
    diag.error(line, "strategy",
               fmt::format("stages x replicas = {} x {} = {} but the scenario has {} devices "
                           "(expected them to match)",
                           stages, replicas, stages * replicas, n));
  if (stages > s.model.layers)
    diag.error(line, "strategy.stages",
               fmt::format("{} stages for a model of {} layers (expected at most one stage per "
                           "layer)",
                           stages, s.model.layers));
}

// SD-Pipe's window must start inside its adaptation range.
void sdpipe_check(const Scenario& s, Diagnostics& diag, int line) {
  pipeline_check(s, diag, line);
  const double lo = s.strategy.number("window_min"), hi = s.strategy.number("window_max"),
               w = s.strategy.number("window_initial");
  if (!(lo <= w && w <= hi))
    diag.error(line, "strategy.window_initial",
               fmt::format("{} s outside [window_min, window_max] = [{}, {}] s", w, lo, hi));
}

std::vector<StrategyDecl> decentralized_strategies() {
  return {
      {"diloco",
       "DiLoCo / OpenDiLoCo: H local steps without communication, then the pseudo-gradient "
       "(weights before - after) is averaged and applied by an outer Nesterov SGD",
       {integer("inner_steps", 50, 1, 1e6, "local (inner) steps H per outer round"),
        number("outer_lr", 0.7, 0, 1e3, "outer SGD learning rate"),
        number("outer_momentum", 0.9, 0, 1, "outer Nesterov momentum"),
        choice("wire_dtype", "fp32", {"fp32", "fp16", "bf16"}, "pseudo-gradient dtype on the wire"),
        choice("averaging", "wait-for-all", {"wait-for-all", "timeout"},
               "all-reduce with everyone, or only the workers ready within `timeout` of the first"),
        duration("timeout", 1800, ranges::kRunTime,
                 "averaging timeout (hivemind's averaging_timeout)"),
        choice("algorithm", "ring", kCollectiveAlgorithms, "all-reduce algorithm (wait-for-all)")},
       data_parallel_check},
      {"sdpipe-preduce",
       "SD-Pipe: pipelines whose stage replicas average weights with the replicas ready within "
       "an adaptive window (partial reduce), with a forced full sync every full_sync_every updates",
       {integer("stages", 1, 1, 1e6, "pipeline stages S"),
        integer("replicas", 1, 1, 1e6, "data-parallel replicas D"),
        choice("schedule", "1f1b", {"gpipe", "1f1b"}, "micro-batch schedule"),
        duration("window_initial", 1e-3, ranges::kWindow, "first partial-reduce window"),
        duration("window_min", 1e-5, ranges::kWindow, "smallest window"),
        duration("window_max", 1e-2, ranges::kWindow, "largest window"),
        integer("full_sync_every", 0, 0, 1e9,
                "updates between forced full syncs (0: 10 x replicas, SD-Pipe's default)")},
       sdpipe_check},
      {"adpsgd",
       "AD-PSGD: after each local step a worker averages its weights with one random peer "
       "(seeded pairing per round), no global barrier",
       {integer("seed", 1, 0, 9e18, "seed of the peer pairing")},
       data_parallel_check},
      {"hetpipe",
       "HetPipe: pipelines (virtual workers) push each wave's gradients to a parameter server per "
       "stage, which applies them in arrival order and returns the weights",
       {integer("stages", 1, 1, 1e6, "pipeline stages S"),
        integer("replicas", 1, 1, 1e6, "virtual workers (pipelines) D"),
        choice("schedule", "gpipe", {"gpipe", "1f1b"}, "micro-batch schedule"),
        integer("server", 0, 0, 1e6, "replica whose stage ranks host the parameter server"),
        integer("staleness", 0, 0, 1000,
                "waves a virtual worker runs on its local weights before it waits for the "
                "server's (HetPipe's bound; one iteration = staleness + 1 waves)")},
       pipeline_check},
  };
}

std::vector<StrategyDecl> build_catalog() {
  return {
      {"ddp-allreduce",
       "data parallel; gradients averaged with an all-reduce after backward (COS 598D task 2b)",
       {choice("algorithm", "ring", kCollectiveAlgorithms, "all-reduce algorithm")},
       data_parallel_check},
      {"ps-gather-scatter",
       "rank 0 gathers all gradients, averages them and scatters the mean (COS 598D task 2a)",
       {integer("server", 0, 0, 1e9, "rank of the parameter server")},
       data_parallel_check},
      {"ps-sharded",
       "every rank owns a shard of the parameters: reduce-scatter to owners, all-gather back "
       "(DT-FM's sharded parameter server)",
       {},
       data_parallel_check},
      {"ddp-bucketed",
       "PyTorch-DDP-like gradient buckets all-reduced while backward goes on (COS 598D task 3)",
       {bytes("bucket_size", 25e6, ValueRange{Quantity::bytes, 1, 1e15},
              "gradient bytes per bucket (PyTorch's default 25 MB)"),
        choice("algorithm", "ring", kCollectiveAlgorithms, "all-reduce algorithm")},
       data_parallel_check},
      {"gpipe",
       "DT-FM pipeline + data parallel: S stages x D replicas, GPipe or 1F1B schedule, then a "
       "per-stage gradient sync among the replicas",
       {integer("stages", 1, 1, 1e6, "pipeline stages S"),
        integer("replicas", 1, 1, 1e6, "data-parallel replicas D"),
        choice("schedule", "gpipe", {"gpipe", "1f1b"}, "micro-batch schedule"),
        choice("dp_sync", "allreduce", {"allreduce", "ps-central", "ps-sharded"},
               "how the replicas of a stage average gradients"),
        choice("algorithm", "ring", kCollectiveAlgorithms, "all-reduce algorithm for dp_sync")},
       pipeline_check},
  };
}

std::vector<StrategyDecl> full_catalog() {
  auto all = build_catalog();
  for (auto& d : decentralized_strategies()) all.push_back(std::move(d));
  return all;
}

}  // namespace

const std::vector<StrategyDecl>& strategy_catalog() {
  static const std::vector<StrategyDecl> catalog = full_catalog();
  return catalog;
}

const StrategyDecl* find_strategy(const std::string& name) {
  for (const auto& s : strategy_catalog())
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& s : strategy_catalog()) names.push_back(s.name);
  return names;
}

int participating_devices(const Scenario& s) {
  return s.emulation.workers > 0 ? s.emulation.workers : static_cast<int>(s.devices.size());
}

}  // namespace geotrain
