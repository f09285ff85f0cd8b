#include "emu/launch/worker_set.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "sim/process/exit_status.hpp"

namespace geotrain::emu {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

char process_state(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? '?' : line[close + 2];
}

}  // namespace

std::string last_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

WorkerSet::WorkerSet(std::vector<WorkerSpec> specs) : specs_(std::move(specs)) {}

WorkerSet::~WorkerSet() { stop(1.0); }

void WorkerSet::start() {
  for (const auto& s : specs_) progress_.push_back(std::make_unique<ProgressMap>(s.progress_path, true));
  for (const auto& s : specs_) {
    process::ChildSpec c;
    c.argv = s.argv;
    c.netns = s.netns;
    c.env = s.env;  // the rest of the environment is the launcher's
    c.die_with_parent = true;  // the launcher died (even kill -9): so does the worker
    // Ctrl-C reaches the launcher only; it decides how workers stop.
    c.group = process::Group::own_group;
    c.out = process::Stream::file(s.stdout_path);
    c.err = process::Stream::file(s.stderr_path);
    children_.push_back(process::ChildProcess::start(c));
    pids_.push_back(children_.back().pid());
    status_.push_back(-1);
  }
}

bool WorkerSet::reap(int rank, bool block) {
  auto& child = children_[static_cast<std::size_t>(rank)];
  const std::optional<int> code = block ? std::optional<int>(child.wait()) : child.try_wait();
  if (code) status_[static_cast<std::size_t>(rank)] = *code;
  return code.has_value();
}

void WorkerSet::stop(double grace_s) {
  std::vector<process::ChildProcess*> all;
  for (auto& c : children_) all.push_back(&c);
  process::ChildProcess::stop_all(all, grace_s);
  for (std::size_t r = 0; r < children_.size(); ++r) reap(static_cast<int>(r), false);
}

std::string WorkerSet::describe_failure(int rank, int status, const SuperviseOptions& o) const {
  const ProgressBlock b = progress_[static_cast<std::size_t>(rank)]->snapshot();
  std::string where = "before its first op";
  if (b.step >= 0 && b.op >= 0)
    where = fmt::format("in step {} op {} ({})", b.step, b.op, o.op_label ? o.op_label(rank, b.op) : "?");
  std::string text = fmt::format("rank {} failed {}: {}", rank, where,
                                 process::describe_exit(status, "geotrain-worker"));
  const std::string last = last_line_of(specs_[static_cast<std::size_t>(rank)].stderr_path);
  if (!last.empty()) text += fmt::format(" (stderr: {})", last);
  return text;
}

SuperviseResult WorkerSet::supervise(const SuperviseOptions& o) {
  const auto t0 = Clock::now();
  const std::size_t n = pids_.size();
  std::vector<Clock::time_point> last_change(n, t0);
  std::vector<std::uint64_t> last_ops(n, 0);
  std::vector<ProgressBlock> blocks(n);
  SuperviseResult res;
  auto finish = [&](std::string failure, int rank) {
    res.failure = std::move(failure);
    res.failed_rank = rank;
    stop(1.0);
    res.exit_status = status_;
    res.wall_s = seconds_since(t0);
    return res;
  };
  for (;;) {
    if (o.interrupted && o.interrupted()) return finish("interrupted by a signal: workers stopped", -1);
    // A failed rank: prefer one killed by a signal (the cause) over peers that lost it.
    int failed = -1;
    for (std::size_t r = 0; r < n; ++r) {
      reap(static_cast<int>(r), false);
      const int st = status_[r];
      if (st > 0 && (failed < 0 || (process::killed_by_signal(st) &&
                                    !process::killed_by_signal(status_[static_cast<std::size_t>(failed)]))))
        failed = static_cast<int>(r);
    }
    if (failed >= 0)
      return finish(describe_failure(failed, status_[static_cast<std::size_t>(failed)], o), failed);
    if (std::all_of(status_.begin(), status_.end(), [](int s) { return s == 0; })) {
      res.ok = true;
      res.exit_status = status_;
      res.wall_s = seconds_since(t0);
      return res;
    }
    int oldest = -1;
    for (std::size_t r = 0; r < n; ++r) {
      blocks[r] = progress_[r]->snapshot();
      if (blocks[r].ops_started != last_ops[r]) last_ops[r] = blocks[r].ops_started, last_change[r] = Clock::now();
      if (status_[r] == -1 && (oldest < 0 || last_change[r] < last_change[static_cast<std::size_t>(oldest)]))
        oldest = static_cast<int>(r);
    }
    if (o.on_poll) o.on_poll(blocks);
    const auto newest = *std::max_element(last_change.begin(), last_change.end());
    bool started = true;
    for (std::size_t r = 0; r < n; ++r) started = started && (status_[r] != -1 || blocks[r].ops_started > 0);
    const double limit = started ? o.stall_timeout_s : std::max(o.stall_timeout_s, o.startup_timeout_s);
    if (oldest >= 0 && std::chrono::duration<double>(Clock::now() - newest).count() > limit) {
      const auto& b = blocks[static_cast<std::size_t>(oldest)];
      const bool stopped = process_state(pids_[static_cast<std::size_t>(oldest)]) == 'T';
      const std::string where = b.step < 0 ? std::string("before its first op")
                                           : fmt::format("in step {} op {} ({})", b.step, b.op,
                                                         o.op_label ? o.op_label(oldest, b.op) : "?");
      return finish(fmt::format("rank {} hung {}: no rank started an op for {:g} s{}", oldest, where,
                                limit, stopped ? " (the process is stopped)" : ""),
                    oldest);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(o.poll_s));
  }
}

}  // namespace geotrain::emu
