#include "sim/sweep/sweep_runner.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "sim/common/error.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/sweep/point_simulator.hpp"
#include "sim/sweep/progress_meter.hpp"

namespace geotrain::sweep {

int default_jobs() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
}

std::vector<std::size_t> spread_first(const std::vector<std::size_t>& todo, std::size_t k) {
  k = std::min(k, todo.size());
  std::vector<bool> taken(todo.size(), false);
  std::vector<std::size_t> order;
  for (std::size_t j = 0; j < k; ++j) {
    const std::size_t at = k == 1 ? 0 : j * (todo.size() - 1) / (k - 1);
    taken[at] = true;  // distinct: the step is >= 1 since k <= todo.size()
    order.push_back(todo[at]);
  }
  for (std::size_t i = 0; i < todo.size(); ++i)
    if (!taken[i]) order.push_back(todo[i]);
  return order;
}

SweepRunner::SweepRunner(const SweepSpec& spec, std::string base_text, std::string points_dir,
                         int jobs)
    : spec_(spec),
      base_text_(std::move(base_text)),
      points_dir_(std::move(points_dir)),
      jobs_(std::max(1, jobs)) {}

void SweepRunner::start(const PointRun& run, std::size_t index) {
  std::fflush(nullptr);  // nothing buffered may be written twice
  const pid_t pid = fork();
  if (pid < 0) throw SystemError("fork", errno, std::strerror(errno));
  if (pid == 0) {
    // SimGrid's own log lines would interleave with the progress line; the result file keeps
    // whatever matters (the reason a point was skipped).
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, STDOUT_FILENO), ::dup2(null, STDERR_FILENO), ::close(null);
    int code = 0;
    try {
      write_result(points_dir_, simulate_point(spec_, base_text_, run));
    } catch (...) {
      code = 1;
    }
    _exit(code);
  }
  children_.push_back({pid, index, std::chrono::steady_clock::now()});
}

bool SweepRunner::reap(RunCounts& counts, ProgressMeter& meter, const std::vector<PointRun>& runs) {
  if (children_.empty()) return false;
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, 0)) < 0 && errno == EINTR) {
  }
  if (pid < 0) throw SystemError("waitpid", errno, std::strerror(errno));
  const auto it =
      std::find_if(children_.begin(), children_.end(), [&](const auto& c) { return c.pid == pid; });
  if (it == children_.end()) return true;  // not one of ours
  const PointRun& run = runs[it->index];
  reaped_wall_s_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - it->started).count();
  children_.erase(it);
  ++counts.ran;
  auto result = read_result(points_dir_, run.hash);
  if (!result) {
    // The child died before writing (a crash inside the engine): record it so that a rerun does
    // not repeat it, and report it like an invalid point.
    PointResult r;
    r.hash = run.hash;
    r.point = run.point;
    r.strategy = spec_.strategies[run.strategy].label;
    r.values = run.values;
    r.reason = WIFSIGNALED(status)
                   ? fmt::format("the simulation crashed (signal {})", WTERMSIG(status))
                   : fmt::format("the simulation exited with status {}", WEXITSTATUS(status));
    write_result(points_dir_, r);
    result = r;
  }
  if (!result->ok) {
    ++counts.skipped;
    std::vector<std::string> where;
    for (std::size_t k = 0; k < spec_.vary.size(); ++k)
      where.push_back(spec_.vary[k].key + "=" + run.values[k]);
    meter.note(fmt::format("sweep: skipped point {} ({}) strategy {}: {}", run.point,
                           fmt::join(where, ", "), result->strategy, result->reason));
  }
  meter.update(counts.ran, counts.skipped);
  return true;
}

RunCounts SweepRunner::run(const std::vector<PointRun>& runs) {
  std::filesystem::create_directories(points_dir_);
  RunCounts counts;
  counts.total = runs.size();
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (read_result(points_dir_, runs[i].hash))
      ++counts.already_done;
    else
      todo.push_back(i);
  }
  if (counts.already_done > 0)
    fmt::print(stderr, "sweep: {} of {} runs already done (resuming)\n", counts.already_done,
               counts.total);
  ProgressMeter meter(todo.size());
  const std::size_t first_wave = std::min(todo.size(), static_cast<std::size_t>(jobs_));
  const auto order = spread_first(todo, first_wave);
  try {
    for (std::size_t n = 0; n < order.size(); ++n) {
      if (n == first_wave) {
        // A sweep of many runs says how long it will take before it takes it: the first wave,
        // timed, stands for the rest (an estimate; the progress line's ETA refines it).
        while (reap(counts, meter, runs)) {
        }
        meter.note(estimate_text(first_wave, reaped_wall_s_ / static_cast<double>(first_wave),
                                 order.size() - first_wave, jobs_));
      }
      while (static_cast<int>(children_.size()) >= jobs_) reap(counts, meter, runs);
      start(runs[order[n]], order[n]);
    }
    while (reap(counts, meter, runs)) {
    }
  } catch (...) {
    for (const auto& c : children_) ::kill(c.pid, SIGTERM);
    for (const auto& c : children_) ::waitpid(c.pid, nullptr, 0);
    children_.clear();
    throw;
  }
  meter.finish(counts.ran, counts.skipped);
  return counts;
}

}  // namespace geotrain::sweep
