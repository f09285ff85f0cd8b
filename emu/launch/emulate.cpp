#include "emu/launch/emulate.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "emu/launch/bandwidth_changer.hpp"
#include "emu/launch/run_results.hpp"
#include "emu/launch/run_setup.hpp"
#include "emu/launch/worker_capabilities.hpp"
#include "emu/launch/worker_set.hpp"
#include "emu/launch/worker_specs.hpp"
#include "emu/net/bandwidth_plan.hpp"
#include "emu/net/host_checks.hpp"
#include "emu/net/linktest/link_test.hpp"
#include "emu/net/orphan_reaper.hpp"
#include "emu/worker/nccl_environment.hpp"
#include "emu/worker/worker_job.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"
#include "sim/program/compression.hpp"
#include "sim/results/result_file.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace fs = std::filesystem;

namespace geotrain::emu {

namespace {

// CPUs this process (and so every worker it starts) may run on.
int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1L, ::sysconf(_SC_NPROCESSORS_ONLN)));
}

using Clock = std::chrono::steady_clock;
constexpr const char* kLog = "emu.launch";

// <run>/bandwidth_changes.csv, for runs whose scenario has network.bandwidth_changes.
void write_bandwidth_changes(const BandwidthChanger& changer, const std::string& dir) {
  if (!changer.records().empty())
    results::write_result_text(dir + "/bandwidth_changes.csv", bandwidth_changes_csv(changer.records()));
}

// The lowest rank that computes the loss (forward through the last layer): its progress is the
// one worth printing.
int loss_rank(const Program& p, int layers) {
  for (int r = 0; r < p.world_size; ++r)
    for (const auto& op : p.ranks[static_cast<std::size_t>(r)])
      if (const auto* c = op.as<ComputeOp>(); c && c->kind == ComputeKind::forward && c->layer_end == layers)
        return r;
  return p.world_size - 1;
}

// Checks a sample of links against the scenario; throws Error naming the links that are off,
// or in advisory mode warns and returns them ("" when all are within tolerance).
std::string check_links(const Scenario& s, const RunCluster& cluster, const EmulateOptions& o,
                        const std::string& dir) {
  LinktestOptions lo;
  lo.pairs = o.linktest_pairs;
  const auto links = run_linktest(s, cluster.layout(), lo);
  results::write_result_text(dir + "/linktest.json", linktest_json(s, cluster.layout(), lo, links));
  std::string off;
  for (const auto& l : links)
    if (!l.delay_ok || !l.bandwidth_ok)
      off += fmt::format("{}{}->{} (rtt {:.2f} ms vs {:.2f} ms, goodput {:.3g} vs {:.3g} Mbit/s)",
                         off.empty() ? "" : "; ", l.src, l.dst, l.measured_rtt_s * 1e3, l.rtt_s * 1e3,
                         l.goodput_Bps * 8e-6, l.payload_ceiling_Bps * 8e-6);
  if (o.on_line) o.on_line(fmt::format("linktest: {} links checked{}", links.size(), off.empty() ? ", all within tolerance" : ""));
  if (!off.empty() && !o.linktest_advisory)
    throw Error(fmt::format("linktest: links off the scenario: {} (see {}/linktest.json; "
                            "--linktest-advisory runs anyway, --skip-linktest for debugging)", off, dir));
  if (!off.empty())
    log::warning(kLog, "linktest: links off the scenario (advisory, running anyway; measured times will "
                 "not match the scenario's network): {}", off);
  return off;
}

// Throws InputError for nccl on CPU workers (a flag against the scenario; the scenario alone is
// refused by its loader), or when the worker says it cannot (asked only for cuda or nccl:
// worker_capabilities.hpp); returns the GPUs the worker sees (0 when not asked).
int check_worker_needs(const Scenario& s, const EmulateOptions& o, const WorkerNeeds& n) {
  if (n.collectives == "nccl" && n.device != "cuda") {
    if (n.collectives_key == "--collectives")
      throw InputError(fmt::format("--collectives nccl: needs device cuda (the run's device is {}, from {}; "
                                   "expected --device cuda, or --collectives p2p or gloo)", n.device, n.device_key));
    throw InputError(fmt::format("--device {}: {}'s emulation.collectives is nccl, which needs device cuda "
                                 "(expected --device cuda, or --collectives p2p or gloo)", n.device, s.path));
  }
  if (!needs_capability_probe(n)) return 0;
  const WorkerCapabilities c = probe_worker_capabilities(o.worker);
  require_worker_capabilities(c, o.worker, n);
  return c.cuda_devices;
}

// A compressed collective runs the Program's own ring (docs/compression.md); Gloo's all-reduce
// cannot requantize. The scenario's own `collectives: gloo` is refused by its loader; the flag here.
void refuse_compression_on_library(const Program& p, const WorkerNeeds& n) {
  for (const auto& ops : p.ranks)
    for (const auto& op : ops)
      if (const auto* c = op.as<CollectiveOp>(); c && c->compression.kind != CompressionKind::none)
        throw InputError(fmt::format("{} gloo: op '{}' is compressed ({}), which needs the Program's own "
                                     "ring (expected --collectives p2p or nccl)",
                                     n.collectives_key, op.label, to_string(c->compression.kind)));
}

WorkerNeeds worker_needs(const Scenario& s, const EmulateOptions& o) {
  WorkerNeeds n;
  n.device = o.device.empty() ? s.emulation.device : o.device;
  n.collectives = o.collectives.empty() ? s.emulation.collectives : o.collectives;
  if (!o.device.empty()) n.device_key = "--device";
  if (!o.collectives.empty()) n.collectives_key = "--collectives";
  return n;
}

SuperviseOptions supervise_options(const Program& p, const Scenario& s, const EmulateOptions& o, int steps) {
  SuperviseOptions so;
  so.stall_timeout_s = o.timeout_s;
  so.interrupted = [] { return interrupted(); };
  so.op_label = [&p](int rank, int op) {
    const auto& ops = p.ranks.at(static_cast<std::size_t>(rank));
    return op >= 0 && op < static_cast<int>(ops.size()) ? ops[static_cast<std::size_t>(op)].label : std::string("?");
  };
  const int watch = loss_rank(p, s.model.layers);
  so.on_poll = [watch, steps, printed = 0, &o](const std::vector<ProgressBlock>& b) mutable {
    const auto& w = b[static_cast<std::size_t>(watch)];
    if (!o.on_line) return;
    // Iterations shorter than a poll: their figures are gone, their line still appears.
    for (; printed + 1 < w.steps_done; ++printed)
      o.on_line(fmt::format("iteration {}/{}  (finished between two polls)", printed + 1, steps));
    if (w.steps_done <= printed) return;
    printed = w.steps_done;
    o.on_line(fmt::format("iteration {}/{}  {:.3f} s  loss {}  {:.0f} tokens/s", printed, steps,
                          w.last_time_s, std::isnan(w.last_loss) ? "-" : fmt::format("{:.4f}", w.last_loss),
                          w.last_tokens_per_s));
  };
  return so;
}

}  // namespace

std::string find_worker_executable(const std::string& explicit_path) {
  std::string path = explicit_path;
  if (path.empty())
    if (const char* env = std::getenv("GEOTRAIN_WORKER"); env && *env) path = env;
  if (path.empty()) {
    std::error_code ec;
    path = (fs::read_symlink("/proc/self/exe", ec).parent_path() / "geotrain-worker").string();
  }
  if (::access(path.c_str(), X_OK) != 0) {
    // In a build tree (scripts/demo.sh builds only geotrain) the fix is one command: name it.
    const fs::path dir = fs::path(path).parent_path();
    std::error_code ec;
    const std::string how = fs::exists(dir / "CMakeCache.txt", ec)
                                ? fmt::format("build it: cmake --build {} --target geotrain-worker", dir.string())
                                : "expected geotrain-worker next to geotrain, or GEOTRAIN_WORKER=<path>";
    throw InputError(fmt::format("geotrain emulate: worker executable {} not found ({})", path, how));
  }
  return fs::absolute(path).string();
}

EmulateResult run_emulation(const EmulateOptions& options) {
  const auto t0 = Clock::now();
  if (options.unshaped && !options.cluster.empty())
    throw InputError("--unshaped: given with --cluster (an unshaped run uses no cluster; expected one of the two)");
  if (!options.unshaped) require_network_privileges("geotrain emulate");
  EmulateOptions o = options;
  o.worker = find_worker_executable(o.worker);
  const Scenario s = load_scenario(o.scenario_path, o.sets);
  if (s.placement.kind == PlacementKind::scheduler)
    throw InputError(fmt::format("{}: placement.kind = 'scheduler': geotrain emulate does not run the "
                                 "scheduler (expected identity, random or file)", s.path));
  const Program program = build_program(s);
  const int steps = o.steps > 0 ? o.steps : s.training.steps;
  const WorkerNeeds needs = worker_needs(s, o);
  if (o.warmup >= steps) o.warmup = steps > 1 ? 1 : 0;
  const WorkerJob job = make_worker_job(s, program);  // may refuse the scenario: before any file
  const int gpus = check_worker_needs(s, o, needs);    // asks the worker: before any file too
  if (needs.collectives == "gloo") refuse_compression_on_library(program, needs);
  const std::string dir = claim_emu_directory(o.results_root, s.name, o.out);
  results::copy_scenario_file(s.path, dir);
  write_worker_job(job, dir + "/job.json");

  std::unique_ptr<RunCluster> cluster;
  if (o.unshaped) {
    if (o.on_line)
      o.on_line(fmt::format("unshaped: {} workers on {} in this network namespace; links NOT shaped, no link test",
                            program.world_size, kLoopbackAddress));
    if (!s.bandwidth_changes.empty())
      log::warning(kLog, "network.bandwidth_changes: not applied (--unshaped: no links to change)");
  } else {
    for (const auto& reaped : reap_orphaned_clusters(StateStore()))
      if (o.on_line) o.on_line(reaped.line());
    cluster = std::make_unique<RunCluster>(s, o.cluster, o.backend.value_or(s.emulation.delay_backend));
    if (o.on_line)
      o.on_line(fmt::format("cluster {}: {} ranks, subnet {}, backend {}{}", cluster->record().cluster,
                            cluster->record().ranks, cluster->record().subnet, cluster->record().backend,
                            cluster->owned() ? "" : " (borrowed)"));
  }
  const std::string links_off = o.unshaped        ? "not shaped (--unshaped)"
                                : o.skip_linktest ? "not checked"
                                                  : check_links(s, *cluster, o, dir);
  throw_if_interrupted();

  const WorkerNetwork net{cluster ? &cluster->layout() : nullptr};
  const int device0 = program.device_of_rank.at(0);
  WorkerRunFlags flags{o.worker, dir + "/job.json", steps, s.emulation.torch_threads, s.seed, o.timeout_s,
                       needs.device, needs.collectives, 0};
  if (gpus > 0) flags.ranks_per_gpu = (program.world_size + gpus - 1) / gpus;  // ranks r, r + gpus, ... share GPU r
  auto specs = make_worker_specs(program, net, flags, dir, free_port_in(net.netns(device0), net.address(device0)));
  std::vector<std::string> progress_paths;
  for (const auto& w : specs) progress_paths.push_back(w.progress_path);
  WorkerSet workers(std::move(specs));
  // Declared after the cluster: on any unwind it restores the rates while the namespaces exist.
  BandwidthChanger changer(cluster ? plan_bandwidth_changes(s, cluster->layout()) : BandwidthPlan{}, progress_paths);
  workers.start();
  changer.start();
  SuperviseResult sup = workers.supervise(supervise_options(program, s, o, steps));
  changer.stop();
  if (const auto failure = changer.failure(); !failure.empty() && sup.ok) {
    sup.ok = false;
    sup.failure = "bandwidth change: " + failure;
  }
  const std::string network = o.unshaped ? kUnshapedNetwork : kShapedNetwork;
  const WorkerTransport transport = worker_transport(needs.collectives);
  nlohmann::ordered_json extra = {{"network", network},
                                  {"cluster", cluster ? cluster->record().cluster : ""},
                                  {"cluster_owned", cluster ? cluster->owned() : false},
                                  {"delay_backend", cluster ? cluster->record().backend : "none"},
                                  {"steps", steps},
                                  {"collectives", needs.collectives},
                                  {"device", needs.device},
                                  {"backend", transport.backend},
                                  {"links_off", links_off},
                                  {"worker", o.worker},
                                  {"exit_status", sup.exit_status},
                                  {"status", sup.ok ? "ok" : "failed"},
                                  {"failure", sup.failure}};
  if (!sup.ok) {
    write_bandwidth_changes(changer, dir);
    results::write_result_text(dir + "/manifest.json", emu_manifest(s, o.sets, extra).dump(2) + "\n");
    throw Error(fmt::format("{} (run directory {})", sup.failure, dir));
  }
  if (cluster)
    if (const auto left = cluster->remove(); !left.empty())
      throw Error(fmt::format("teardown left namespaces: {}", fmt::join(left, " ")));

  const RankMeasurements m = read_rank_measurements(dir + "/ranks", program.world_size);
  const double training_s = training_span_s(m);
  if (const std::size_t missed = changer.settle(training_s); missed > 0)
    log::warning(kLog, "network.bandwidth_changes: {} of {} change(s) came after training ended ({:.3f} s after "
                 "its first op) and changed nothing; raise --steps or move them earlier "
                 "(bandwidth_changes.csv says which)",
                 missed, changer.records().size(), training_s);
  write_bandwidth_changes(changer, dir);
  EmulateResult res;
  res.dir = dir;
  res.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const SummaryInputs in{o.warmup,      res.wall_s,        sup.wall_s, needs.collectives, "emu", usable_cpus(),
                         needs.device, transport.backend, network};
  const auto summary = write_run_results(s, program, dir, m, in);
  extra["wall_s"] = res.wall_s;
  results::write_result_text(dir + "/manifest.json", emu_manifest(s, o.sets, extra).dump(2) + "\n");
  res.iteration_time_s = summary["iteration_time_s"].get<double>();
  res.tokens_per_s = summary["tokens_per_s"].get<double>();
  res.bytes_match = summary["bytes"]["match"].get<bool>();
  res.bytes_counted = !summary["bytes"]["counted_per_iteration"].is_null();
  res.bytes_fixed = !summary["bytes"]["program_per_iteration"].is_null();
  return res;
}

}  // namespace geotrain::emu
