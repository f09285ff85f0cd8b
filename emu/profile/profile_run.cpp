#include "emu/profile/profile_run.hpp"

#include <stdlib.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "emu/launch/emulate.hpp"
#include "emu/profile/host_facts.hpp"
#include "emu/worker/profile_ops.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/stage_memory.hpp"
#include "emu/worker/worker_job.hpp"
#include "sim/common/did_you_mean.hpp"
#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"
#include "sim/common/text_rules.hpp"
#include "sim/process/child_process.hpp"
#include "sim/process/exit_status.hpp"
#include "sim/results/run_directory.hpp"
#include "sim/scenario/device_library.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/compute_profile.hpp"
#include "sim/workload/device_efficiency.hpp"

namespace geotrain::profile {

namespace fs = std::filesystem;

namespace {

constexpr double kProfileGiB = 1024.0 * 1024 * 1024;

// A folder of its own under the temp folder for the job, the request and the worker's answer;
// removed when the run ends, however it ends.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "geotrain-profile-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw SystemError("mkdtemp " + pattern, errno, "cannot create a temp folder");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string worker_path(const std::string& given) {
  try {
    return emu::find_worker_executable(given);
  } catch (const InputError& e) {  // its words name `geotrain emulate`; the fix is the same
    std::string line = e.problems().empty() ? e.what() : e.problems().front();
    if (line.rfind("geotrain emulate:", 0) == 0) line = "geotrain profile:" + line.substr(17);
    throw InputError(line);
  }
}

// The CPU holds the stage (weights, gradients, optimizer state, activations) in its memory; the
// CUDA context the estimate adds is not there. The worker checks a GPU's free memory itself.
// `copies` workers (--concurrent) hold a stage each at the same time.
void check_host_memory(const WorkerJob& job, const std::vector<ProfileOpSite>& sites, int copies) {
  const auto available = available_memory_bytes();
  if (!available) return;  // no /proc/meminfo: nothing to judge by
  std::set<int> ranks;
  for (const auto& s : sites) ranks.insert(s.rank);
  for (const int rank : ranks) {
    const auto plan = make_rank_plan(job.program, rank, job.model.layers);
    StageMemory need = estimate_stage_memory(job, plan);
    need.overhead = 0;
    if (need.total() * copies <= *available) continue;
    throw InputError(fmt::format(
        "geotrain profile: stage {} (layers [{}, {})) needs about {:.2f} GiB of host memory (weights {:.2f}, "
        "gradients {:.2f}, optimizer {:.2f}, outer {:.2f}, activations {:.2f}){} but {:.2f} GiB are available "
        "(MemAvailable, /proc/meminfo; a smaller model or micro-batch would fit)",
        plan.stage, plan.layer_begin, plan.layer_end, need.total() * copies / kProfileGiB,
        need.weights / kProfileGiB, need.gradients / kProfileGiB, need.optimizer / kProfileGiB,
        need.outer / kProfileGiB, need.activations / kProfileGiB,
        copies > 1 ? fmt::format(" for each of --concurrent {}", copies) : std::string(), *available / kProfileGiB));
  }
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

// A worker's exit: nothing for 0, else its refusal (InputError, as it words it) or its failure.
void check_worker_exit(int code, const std::vector<std::string>& argv, const std::string& err_path) {
  if (code == 0) return;
  auto lines = lines_of(err_path);
  if (code == 2 && !lines.empty()) throw InputError(lines);  // the worker's refusal, as it words it
  std::string tail;
  for (std::size_t i = lines.size() > 5 ? lines.size() - 5 : 0; i < lines.size(); ++i) tail += "\n  " + lines[i];
  throw Error(fmt::format("geotrain profile: {} ended with {}{}", process::command_line(argv),
                          process::describe_exit(code, argv.front()), tail));
}

// One worker's folder for its answer (profile_times.json), its errors and, but for the first
// one's, its progress lines.
struct WorkerRun {
  std::string dir;
  std::vector<std::string> argv;
  process::ChildProcess child;
};

// Runs `count` workers at once, each timing every op (--concurrent): the first one's progress
// lines go to our stdout, the others' to files. Polls them, so the first to fail stops the rest
// at once instead of after they have timed everything; throws as check_worker_exit.
void run_worker_profiles(std::vector<WorkerRun>& runs) {
  for (std::size_t k = 0; k < runs.size(); ++k) {
    process::ChildSpec spec;
    spec.argv = runs[k].argv;
    spec.die_with_parent = true;
    if (k > 0) spec.out = process::Stream::file(runs[k].dir + "/worker.out");
    spec.err = process::Stream::file(runs[k].dir + "/worker.err");
    runs[k].child = process::ChildProcess::start(spec);
  }
  for (std::size_t done = 0; done < runs.size();) {
    done = 0;
    for (auto& r : runs) {
      const auto code = r.child.try_wait();  // a reaped child answers its code again
      if (!code) continue;
      ++done;
      if (*code == 0) continue;
      std::vector<process::ChildProcess*> others;
      for (auto& o : runs)
        if (o.child.running()) others.push_back(&o.child);
      process::ChildProcess::stop_all(others, 2.0);
      check_worker_exit(*code, r.argv, r.dir + "/worker.err");
    }
    if (done < runs.size()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// --device-entry: the library device the efficiency is measured against, checked before minutes
// of profiling; "" without --device-entry.
std::string device_entry_like(const ProfileOptions& o, const Scenario& s) {
  if (o.device_entry.empty()) {
    if (!o.like.empty()) throw InputError("geotrain profile: --like needs --device-entry NAME");
    return "";
  }
  if (const auto problem = identifier_problem(o.device_entry))
    throw InputError(fmt::format("geotrain profile: --device-entry '{}': {}", printable(o.device_entry), *problem));
  const auto names = library_device_names();
  if (!o.like.empty()) {
    if (library_device(o.like)) return o.like;
    std::string line = fmt::format("geotrain profile: --like '{}': not in the device library (known: {}",
                                   printable(o.like), join_names(names));
    if (const auto close = closest_name(o.like, names)) line += fmt::format("; did you mean '{}'?", *close);
    throw InputError(line + ")");
  }
  const std::string first = s.devices.empty() ? "" : s.devices.front().profile;
  if (library_device(first)) return first;
  throw InputError(fmt::format("geotrain profile: --device-entry: the scenario's first device has profile '{}', "
                               "which is not in the device library (expected --like with one of: {})",
                               printable(first), join_names(names)));
}

// device_profile.yaml beside the profile; never overwritten.
std::string device_fragment_path(const std::string& profile_path) {
  const fs::path parent = fs::path(profile_path).parent_path();
  return (parent.empty() ? fs::path(kDeviceProfileFile) : parent / kDeviceProfileFile).string();
}

}  // namespace

ProfileResult run_profile(const ProfileOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string worker = worker_path(o.worker);
  const Scenario s = load_scenario(o.scenario_path, o.sets);
  std::error_code ec;
  if (!o.out.empty() && fs::exists(o.out, ec))
    throw InputError(fmt::format("geotrain profile: --out {}: already exists (expected a new file: a profile is "
                                 "never overwritten)", o.out));
  // A results path that would leave its root is refused before minutes of profiling.
  if (o.out.empty()) path_under(o.results, {s.name, "profile"}, "name");
  const std::string like = device_entry_like(o, s);
  if (!like.empty() && !o.out.empty() && fs::exists(device_fragment_path(o.out), ec))
    throw InputError(fmt::format("geotrain profile: {}: already exists (expected a folder without one: "
                                 "--device-entry writes {} next to --out, never over another)",
                                 device_fragment_path(o.out), kDeviceProfileFile));
  // Which device holds which stage does not change any op: the scheduler's placement is not needed.
  Scenario shapes = s;
  if (shapes.placement.kind == PlacementKind::scheduler) shapes.placement.kind = PlacementKind::identity;
  const Program program = build_program(shapes);
  const WorkerJob job = make_worker_job(s, program);
  ProfileRequest request;
  request.repeat = o.repeat;
  request.warmup = o.warmup;
  request.min_seconds = o.min_seconds;
  request.ops = distinct_compute_ops(program);
  if (request.ops.empty()) throw InputError(fmt::format("geotrain profile: {}: the Program has no Compute op", s.path));
  if (o.concurrent < 1)  // the CLI checks its range; a library caller gets the same line
    throw InputError(fmt::format("geotrain profile: --concurrent {}: expected 1 or more", o.concurrent));
  if (o.device == "cpu") check_host_memory(job, request.ops, o.concurrent);
  const int threads = o.threads > 0 ? o.threads : s.emulation.torch_threads;

  std::set<int> ranks;
  for (const auto& site : request.ops) ranks.insert(site.rank);
  ScratchDir scratch;
  const std::string job_path = scratch.path() + "/job.json", request_path = scratch.path() + "/request.json";
  write_worker_job(job, job_path);
  write_profile_request(request, request_path);
  std::vector<WorkerRun> runs(static_cast<std::size_t>(o.concurrent));
  for (std::size_t k = 0; k < runs.size(); ++k) {
    runs[k].dir = scratch.path() + "/worker" + std::to_string(k);
    fs::create_directories(runs[k].dir);
    runs[k].argv = {worker, "--profile", request_path, "--program", job_path, "--out", runs[k].dir, "--device",
                    o.device, "--threads", std::to_string(threads), "--seed", std::to_string(s.seed)};
  }
  run_worker_profiles(runs);
  // Every worker's samples, pooled: with --concurrent K an op's samples are K workers' at once.
  std::vector<ProfileTimes> answers;
  for (const auto& r : runs) answers.push_back(read_profile_times(r.dir + "/profile_times.json", program));
  const ProfileTimes& times = answers.front();

  std::vector<ProfileSample> samples;
  for (const auto& answer : answers)
    for (const auto& t : answer.ops) {
      const auto& op = *program.ranks.at(static_cast<std::size_t>(t.site.rank))
                            .at(static_cast<std::size_t>(t.site.op))
                            .as<ComputeOp>();
      for (std::size_t k = 0; k < t.samples_s.size(); ++k) {
        ProfileSample sample{op, t.samples_s[k], std::nan(""), {}};
        if (k < t.cpu_samples_s.size()) sample.cpu_seconds = t.cpu_samples_s[k];
        samples.push_back(sample);
      }
    }
  const auto entries = summarize_samples(samples);
  ProfileMeasuredAt at = measured_at_of(s);
  at.device = times.device;
  at.torch_threads = times.threads;
  at.torch = times.torch;
  at.host = cpu_model_name();
  at.date = utc_now_iso8601();
  at.repeat = o.repeat;
  at.warmup = o.warmup;
  at.min_seconds = o.min_seconds;
  at.concurrent = o.concurrent;

  std::optional<DeviceEfficiency> efficiency;
  std::optional<std::string> refused;
  if (!like.empty()) {
    efficiency = measure_device_efficiency(entries, o.device_entry, like, s.model.dtype);
    refused = device_efficiency_problem(*efficiency);
  }

  std::string path;
  if (o.out.empty()) {
    path = results::claim_run_directory(o.results, s.name, "profile") + "/compute_profile.json";
  } else {
    path = o.out;
    if (const fs::path parent = fs::path(path).parent_path(); !parent.empty()) fs::create_directories(parent);
  }
  // The measurements stand whatever the entry: a refused one leaves the profile without it.
  write_compute_profile(path, entries, s.model.preset, times.device, nullptr, &at,
                        efficiency && !refused ? &*efficiency : nullptr);
  if (refused)
    throw Error(fmt::format("geotrain profile: --device-entry {}: {}; the compute profile is written ({}), without "
                            "device_efficiency, and no {}",
                            o.device_entry, *refused, path, kDeviceProfileFile));
  ProfileResult result{path, entries.size(), static_cast<int>(ranks.size()),
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), efficiency, ""};
  if (efficiency) {
    result.device_profile_path = device_fragment_path(path);
    std::ofstream fragment(result.device_profile_path);
    fragment << device_profile_fragment(*efficiency, at, s.path);
    if (!fragment) throw SystemError("write " + result.device_profile_path, errno, "cannot write the device profile");
  }
  return result;
}

}  // namespace geotrain::profile
