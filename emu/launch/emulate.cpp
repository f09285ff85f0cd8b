#include "emu/launch/emulate.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "emu/launch/bandwidth_changer.hpp"
#include "emu/launch/run_results.hpp"
#include "emu/launch/run_setup.hpp"
#include "emu/launch/worker_set.hpp"
#include "emu/net/bandwidth_plan.hpp"
#include "emu/net/host_checks.hpp"
#include "emu/net/linktest/link_test.hpp"
#include "emu/net/orphan_reaper.hpp"
#include "emu/worker/worker_job.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"
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

std::vector<WorkerSpec> worker_specs(const Scenario& s, const Program& p, const RunCluster& cluster,
                                     const EmulateOptions& o, const std::string& dir, int steps,
                                     const std::string& collectives) {
  const auto& L = cluster.layout();
  const int device0 = p.device_of_rank.at(0);
  const int port = free_port_in(L.rank_namespace(device0), L.rank_address(device0));
  std::vector<WorkerSpec> specs;
  for (int r = 0; r < p.world_size; ++r) {
    const int dev = p.device_of_rank[static_cast<std::size_t>(r)];
    const std::string rd = fmt::format("{}/ranks/{}", dir, r);
    fs::create_directories(rd);
    specs.push_back({{o.worker, "--program", dir + "/job.json", "--rank", std::to_string(r),
                      "--store-addr", L.rank_address(device0), "--store-port", std::to_string(port),
                      "--bind-addr", L.rank_address(dev), "--steps", std::to_string(steps), "--out", rd,
                      "--threads", std::to_string(s.emulation.torch_threads), "--seed",
                      std::to_string(s.seed), "--collectives", collectives,
                      // Peers wait longer than the launcher's stall limit, so the launcher names
                      // the stuck rank before its peers time out on it.
                      "--timeout", fmt::format("{}", 2 * o.timeout_s + 5), "--progress", rd + "/progress.bin"},
                     L.rank_namespace(dev), rd + "/stdout.txt", rd + "/stderr.txt", rd + "/progress.bin"});
  }
  return specs;
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
  require_network_privileges("geotrain emulate");
  EmulateOptions o = options;
  o.worker = find_worker_executable(o.worker);
  const Scenario s = load_scenario(o.scenario_path, o.sets);
  if (s.placement.kind == PlacementKind::scheduler)
    throw InputError(fmt::format("{}: placement.kind = 'scheduler': geotrain emulate does not run the "
                                 "scheduler (expected identity, random or file)", s.path));
  const Program program = build_program(s);
  const int steps = o.steps > 0 ? o.steps : s.training.steps;
  const std::string collectives = o.collectives.empty() ? s.emulation.collectives : o.collectives;
  if (o.warmup >= steps) o.warmup = steps > 1 ? 1 : 0;
  const WorkerJob job = make_worker_job(s, program);  // may refuse the scenario: before any file
  const std::string dir = claim_emu_directory(o.results_root, s.name, o.out);
  results::copy_scenario_file(s.path, dir);
  write_worker_job(job, dir + "/job.json");

  for (const auto& reaped : reap_orphaned_clusters(StateStore()))
    if (o.on_line) o.on_line(reaped.line());
  RunCluster cluster(s, o.cluster, o.backend.value_or(s.emulation.delay_backend));
  if (o.on_line)
    o.on_line(fmt::format("cluster {}: {} ranks, subnet {}, backend {}{}", cluster.record().cluster,
                          cluster.record().ranks, cluster.record().subnet, cluster.record().backend,
                          cluster.owned() ? "" : " (borrowed)"));
  const std::string links_off = o.skip_linktest ? "not checked" : check_links(s, cluster, o, dir);
  throw_if_interrupted();

  auto specs = worker_specs(s, program, cluster, o, dir, steps, collectives);
  std::vector<std::string> progress_paths;
  for (const auto& w : specs) progress_paths.push_back(w.progress_path);
  WorkerSet workers(std::move(specs));
  // Declared after the cluster: on any unwind it restores the rates while the namespaces exist.
  BandwidthChanger changer(plan_bandwidth_changes(s, cluster.layout()), progress_paths);
  workers.start();
  changer.start();
  SuperviseResult sup = workers.supervise(supervise_options(program, s, o, steps));
  changer.stop();
  if (const auto failure = changer.failure(); !failure.empty() && sup.ok) {
    sup.ok = false;
    sup.failure = "bandwidth change: " + failure;
  }
  nlohmann::ordered_json extra = {{"cluster", cluster.record().cluster},
                                  {"cluster_owned", cluster.owned()},
                                  {"delay_backend", cluster.record().backend},
                                  {"steps", steps},
                                  {"collectives", collectives},
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
  const auto left = cluster.remove();
  if (!left.empty()) throw Error(fmt::format("teardown left namespaces: {}", fmt::join(left, " ")));

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
  const auto summary = write_run_results(s, program, dir, m, {o.warmup, res.wall_s, sup.wall_s, collectives, "emu", usable_cpus()});
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
