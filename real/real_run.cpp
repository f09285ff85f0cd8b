#include "real/real_run.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "emu/launch/run_results.hpp"
#include "emu/worker/worker_job.hpp"
#include "real/hosts_file.hpp"
#include "real/remote_commands.hpp"
#include "real/remote_workers.hpp"
#include "real/ssh_client.hpp"
#include "real/worker_backend.hpp"
#include "sim/common/error.hpp"
#include "sim/results/manifest.hpp"
#include "sim/results/result_file.hpp"
#include "sim/results/run_directory.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace fs = std::filesystem;

namespace geotrain::real {

namespace {

using Clock = std::chrono::steady_clock;

volatile sig_atomic_t g_stop_signal = 0;
void on_stop(int sig) { g_stop_signal = sig; }

// While alive, SIGINT and SIGTERM set a flag the run checks between its steps and while it
// supervises: it then stops the workers on every host before it exits.
class StopOnSignal {
 public:
  StopOnSignal() {
    g_stop_signal = 0;
    struct sigaction a {};
    a.sa_handler = on_stop;
    for (int s : {SIGINT, SIGTERM}) sigaction(s, &a, &old_[s == SIGINT ? 0 : 1]);
  }
  ~StopOnSignal() {
    sigaction(SIGINT, &old_[0], nullptr);
    sigaction(SIGTERM, &old_[1], nullptr);
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  static bool seen() { return g_stop_signal != 0; }
  static void throw_if_seen(const std::string& when) {
    if (seen())
      throw Error(fmt::format("interrupted by {} {}", g_stop_signal == SIGINT ? "SIGINT" : "SIGTERM", when));
  }

 private:
  struct sigaction old_[2] {};
};

std::string under(const std::string& dir, const std::string& name) {
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// One remote command to its end (staging, fetching); throws HostError naming the host and `what`.
RemoteResult run_remote(const HostSpec& host, const std::string& command, const std::string& input,
                        double timeout_s, const std::string& what) {
  RemoteRun run;
  run.stdin_text = input;
  run.timeout_s = timeout_s;
  return ssh_run_checked(with_keepalive(host), command, what, run);
}

nlohmann::ordered_json hosts_json(const RealPlan& plan) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& h : plan.hosts) {
    auto ranks = nlohmann::ordered_json::array();
    for (const auto& w : h.workers) ranks.push_back(w.rank);
    out.push_back({{"name", h.host.name}, {"address", h.host.address.to_string()},
                   {"data_address", h.host.data_address}, {"interface", h.host.interface},
                   {"workdir", h.host.workdir}, {"worker", h.host.worker}, {"device", h.host.device},
                   {"ranks", std::move(ranks)}});
  }
  return out;
}

// The hosts' device when they all have one (cpu, cuda), else "mixed".
std::string run_device(const RealPlan& plan) {
  std::string device;
  for (const auto& h : plan.hosts)
    device = device.empty() || device == h.host.device ? h.host.device : "mixed";
  return device;
}

nlohmann::ordered_json real_manifest(const Scenario& s, const RealRunOptions& o, const RealPlan& plan,
                                     const std::string& backend, int steps, const std::string& collectives) {
  nlohmann::ordered_json j = results::manifest_head({"real", s.name, s.path, o.sets, s.seed, nlohmann::ordered_json::object()});
  j["hosts_file"] = o.hosts_path;
  j["hosts"] = hosts_json(plan);
  j["master_addr"] = plan.master_addr;
  j["master_port"] = plan.master_port;
  j["backend"] = backend;
  j["device"] = run_device(plan);
  j["steps"] = steps;
  j["collectives"] = collectives;
  j["worker_timeout_s"] = plan.timeout_s;
  j["worker_timeout_inputs"] = {{"max_round_trip_s", plan.timeout_inputs.max_round_trip_s},
                                {"largest_message_bytes", plan.timeout_inputs.largest_message_bytes},
                                {"min_bandwidth_Bps", plan.timeout_inputs.min_bandwidth_Bps},
                                {"world_size", plan.timeout_inputs.world_size}};
  j["warnings"] = plan.warnings;
  return j;
}

// The workers' launches in Program rank order, each with its host.
std::vector<std::pair<const HostPlan*, const WorkerLaunch*>> launches(const RealPlan& plan) {
  std::vector<std::pair<const HostPlan*, const WorkerLaunch*>> out(static_cast<std::size_t>(plan.world_size));
  for (const auto& h : plan.hosts)
    for (const auto& w : h.workers) out.at(static_cast<std::size_t>(w.rank)) = {&h, &w};
  return out;
}

void stage(const RealPlan& plan, const std::string& job_text, const RealRunOptions& o) {
  for (const auto& h : plan.hosts) {
    std::vector<int> ranks;
    for (const auto& w : h.workers) ranks.push_back(w.rank);
    run_remote(h.host, stage_command(h.host.workdir, ranks), job_text, o.ssh_command_timeout_s,
               fmt::format("staging job.json into {}", h.host.workdir));
    if (o.on_line) o.on_line(fmt::format("staged {} on host {}", under(h.host.workdir, "job.json"), h.host.name));
    StopOnSignal::throw_if_seen("while staging");
  }
}

void fetch(const RealPlan& plan, const std::string& dir, const RealRunOptions& o) {
  for (const auto& [h, w] : launches(plan)) {
    const std::string rd = fmt::format("{}/ranks/{}", dir, w->rank);  // made before the workers started
    const std::vector<std::string> wanted{"ops.csv", "iterations.csv", "dynamic.csv", "worker.json"};
    const auto r = run_remote(h->host, fetch_command(h->host.workdir, w->rank, wanted), "", o.ssh_command_timeout_s,
                              fmt::format("fetching the files of rank {}", w->rank));
    bool ops = false, iterations = false;
    for (const auto& [name, text] : parse_fetched(r.out)) {
      // The remote side names the files it sends; only the ones asked for are written, so nothing
      // a host answers can choose a path here.
      if (std::find(wanted.begin(), wanted.end(), name) == wanted.end())
        throw Error(fmt::format("host {}: rank {} sent '{}', which was not asked for ({})", h->host.name, w->rank,
                                name, fmt::join(wanted, ", ")));
      results::write_result_text(rd + "/" + name, text);
      ops = ops || name == "ops.csv", iterations = iterations || name == "iterations.csv";
    }
    if (!ops || !iterations)
      throw Error(fmt::format("host {}: rank {} left no {} in {}", h->host.name, w->rank, ops ? "iterations.csv" : "ops.csv",
                              under(h->host.workdir, fmt::format("ranks/{}", w->rank))));
    StopOnSignal::throw_if_seen("while fetching the results");
  }
}

}  // namespace

HostSpec with_keepalive(const HostSpec& host) {
  HostSpec h = host;
  for (const char* o : {"ServerAliveInterval=5", "ServerAliveCountMax=3"}) h.ssh_options.insert(h.ssh_options.end(), {"-o", o});
  return h;
}

RealRunResult run_real(const RealRunOptions& options) {
  const auto t0 = Clock::now();
  const RealRunOptions& o = options;
  if (!o.collectives.empty() && o.collectives != "p2p" && o.collectives != "gloo" && o.collectives != "nccl")
    throw InputError(fmt::format("--collectives: '{}' (expected p2p, gloo or nccl)", o.collectives));
  if (!o.backend.empty()) require_backend(parse_backend(o.backend), torch_has_cuda());
  Scenario s = load_scenario(o.scenario_path, o.sets);
  if (s.placement.kind == PlacementKind::scheduler)
    throw InputError(fmt::format("{}: placement.kind = 'scheduler': geotrain real does not run the scheduler "
                                 "(expected identity, random or file)", s.path));
  if (o.steps > 0) s.training.steps = o.steps;
  if (!o.collectives.empty()) s.emulation.collectives = o.collectives;
  const WorkerBackend backend = resolve_backend(o.backend, s.emulation.collectives);
  require_backend(backend, torch_has_cuda());
  const int steps = s.training.steps;
  int warmup = o.warmup;
  if (warmup >= steps) warmup = steps > 1 ? 1 : 0;
  const HostsFile hosts = load_hosts(o.hosts_path, s);
  const Program program = build_program(s);
  RealPlanOptions po;
  po.master_port = o.master_port;
  RealPlan plan = make_real_plan(s, program, hosts, po);
  apply_backend(plan, backend);
  const WorkerJob job = make_worker_job(s, program);  // may refuse the scenario: before any file

  const StopOnSignal stop_on_signal;
  const std::string dir = results::claim_directory(o.results_root, s.name, "real", o.out);
  results::copy_scenario_file(s.path, dir);
  const std::string job_text = worker_job_text(job);
  results::write_result_text(dir + "/job.json", job_text);
  auto manifest = real_manifest(s, o, plan, backend_name(backend), steps, s.emulation.collectives);
  manifest["status"] = "started";
  results::write_result_text(dir + "/manifest.json", manifest.dump(2) + "\n");
  if (o.on_line)
    o.on_line(fmt::format("real run {}: {} ranks on {} hosts, master {}:{}, worker timeout {:g} s, backend {}, run directory {}",
                          s.name, program.world_size, plan.hosts.size(), plan.master_addr, plan.master_port,
                          plan.timeout_s, backend_name(backend), dir));
  for (const auto& w : plan.warnings)
    if (o.on_line) o.on_line("warning: " + w);

  auto fail = [&](const std::string& failure, const std::vector<int>& status) {
    manifest["status"] = "failed";
    manifest["failure"] = failure;
    manifest["exit_status"] = status;
    manifest["wall_s"] = std::chrono::duration<double>(Clock::now() - t0).count();
    results::write_result_text(dir + "/manifest.json", manifest.dump(2) + "\n");
    return Error(fmt::format("{} (run directory {})", failure, dir));
  };
  try {
    stage(plan, job_text, o);
  } catch (const Error& e) {
    throw fail(e.what(), {});
  }

  std::vector<RemoteWorker> specs;
  for (const auto& [h, w] : launches(plan)) {
    const std::string rd = fmt::format("{}/ranks/{}", dir, w->rank);
    fs::create_directories(rd);
    specs.push_back({w->rank, h->host.name, ssh_argv(with_keepalive(h->host), worker_command(h->host.workdir, w->rank, w->env, w->argv)),
                     rd + "/stdout.txt", rd + "/stderr.txt"});
  }
  RemoteWorkers workers(std::move(specs));
  workers.start(o.on_line);
  if (o.on_line) o.on_line(fmt::format("started {} workers", program.world_size));
  RemoteSuperviseOptions so;
  so.interrupted = [] { return StopOnSignal::seen(); };
  so.on_line = o.on_line;
  const RemoteSuperviseResult sup = workers.supervise(so);
  manifest["exit_status"] = sup.exit_status;
  if (!sup.ok) throw fail(sup.failure, sup.exit_status);

  try {
    fetch(plan, dir, o);
  } catch (const Error& e) {
    throw fail(e.what(), sup.exit_status);
  }
  const auto m = emu::read_rank_measurements(dir + "/ranks", program.world_size);
  RealRunResult res;
  res.dir = dir;
  res.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  const auto summary = emu::write_run_results(
      s, program, dir, m,
      {warmup, res.wall_s, sup.wall_s, s.emulation.collectives, "real", 0, run_device(plan), backend_name(backend), "real hosts"});
  manifest["status"] = "ok";
  manifest["failure"] = "";
  manifest["wall_s"] = res.wall_s;
  results::write_result_text(dir + "/manifest.json", manifest.dump(2) + "\n");
  res.iteration_time_s = summary["iteration_time_s"].get<double>();
  res.tokens_per_s = summary["tokens_per_s"].get<double>();
  return res;
}

}  // namespace geotrain::real
