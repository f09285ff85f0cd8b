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
  children_.push_back({pid, index});
}

bool SweepRunner::reap(RunCounts& counts, ProgressMeter& meter, const std::vector<PointRun>& runs) {
  if (children_.empty()) return false;
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, 0)) < 0 && errno == EINTR) {
  }
  if (pid < 0) throw SystemError("waitpid", errno, std::strerror(errno));
  const auto it = std::find_if(children_.begin(), children_.end(),
                               [&](const auto& c) { return c.first == pid; });
  if (it == children_.end()) return true;  // not one of ours
  const PointRun& run = runs[it->second];
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
  try {
    for (std::size_t i : todo) {
      while (static_cast<int>(children_.size()) >= jobs_) reap(counts, meter, runs);
      start(runs[i], i);
    }
    while (reap(counts, meter, runs)) {
    }
  } catch (...) {
    for (const auto& c : children_) ::kill(c.first, SIGTERM);
    for (const auto& c : children_) ::waitpid(c.first, nullptr, 0);
    children_.clear();
    throw;
  }
  meter.finish(counts.ran, counts.skipped);
  return counts;
}

}  // namespace geotrain::sweep
