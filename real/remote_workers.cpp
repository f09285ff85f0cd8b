#include "real/remote_workers.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "real/ssh_client.hpp"
#include "sim/process/child_process.hpp"
#include "sim/process/exit_status.hpp"
#include "sim/process/output_pump.hpp"

namespace geotrain::real {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

struct RemoteWorkers::Running {
  process::ChildProcess child;
  int stdin_fd = -1;
  std::thread pump;
  std::atomic<bool> pump_done{false};
  std::mutex mutex;
  std::string last_stderr;  // guarded by mutex
  int status = -1;

  void close_stdin() {
    if (stdin_fd >= 0) ::close(stdin_fd), stdin_fd = -1;
  }
  bool finished() const { return status >= 0 && pump_done; }
  std::string last_err() {
    std::lock_guard lock(mutex);
    return last_stderr;
  }
};

std::string describe_remote_failure(int rank, const std::string& host, int code, const std::string& last_stderr) {
  std::string what;
  if (code == kSshFailedStatus) what = "its ssh connection failed (ssh exit status 255)";
  else if (code == 127) what = "exit status 127 (the worker was not found on the host)";
  else if (code == 126) what = "exit status 126 (the worker is not executable on the host)";
  else if (code == 120) what = "exit status 120 (the wrapper could not create its directories in the workdir)";
  else what = process::describe_exit(code, "geotrain-worker");
  std::string text = fmt::format("rank {} on host {} failed: {}", rank, host, what);
  if (!last_stderr.empty()) text += fmt::format(" (stderr: {})", last_stderr);
  return text;
}

RemoteWorkers::RemoteWorkers(std::vector<RemoteWorker> workers) : workers_(std::move(workers)) {}

RemoteWorkers::~RemoteWorkers() {
  try {
    stop(1.0);
  } catch (...) {
    // Destructors must not throw; the clients die with us anyway (PR_SET_PDEATHSIG).
  }
}

std::vector<pid_t> RemoteWorkers::pids() const {
  std::vector<pid_t> out;
  for (const auto& r : running_) out.push_back(r->child.pid());
  return out;
}

void RemoteWorkers::start(const std::function<void(const std::string&)>& on_line) {
  for (const auto& w : workers_) {
    process::ChildSpec c;
    c.argv = w.argv;
    c.search_path = true;
    c.die_with_parent = true;           // a kill -9 of the controller ends the ssh clients too
    c.group = process::Group::own_group;  // Ctrl-C reaches the controller only; it decides
    c.in = process::Stream::pipe();     // held open: its end is the remote worker's end
    c.out = process::Stream::pipe();
    c.err = process::Stream::pipe();
    auto r = std::make_unique<Running>();
    r->child = process::ChildProcess::start(c);
    r->stdin_fd = r->child.take_fd(0);
    const int out_fd = r->child.take_fd(1), err_fd = r->child.take_fd(2);
    Running* raw = r.get();
    const std::string prefix = fmt::format("[{}/{}] ", w.host, w.rank);
    r->pump = std::thread([raw, out_fd, err_fd, prefix, on_line, w] {
      std::ofstream out_log, err_log;
      if (!w.stdout_path.empty()) out_log.open(w.stdout_path);
      if (!w.stderr_path.empty()) err_log.open(w.stderr_path);
      process::OutputPump pump(-1, out_fd, err_fd);
      pump.on_stdout_line([&](const std::string& line) {
        if (out_log) out_log << line << '\n' << std::flush;
        if (on_line) on_line(prefix + line);
      });
      pump.on_stderr_line([&](const std::string& line) {
        if (err_log) err_log << line << '\n' << std::flush;
        if (line.find_first_not_of(" \t\r") != std::string::npos) {
          std::lock_guard lock(raw->mutex);
          raw->last_stderr = line;
        }
        if (on_line) on_line(prefix + line);
      });
      pump.run("", std::nullopt);
      raw->pump_done = true;
    });
    running_.push_back(std::move(r));
  }
}

void RemoteWorkers::stop(double grace_s) {
  for (auto& r : running_) r->close_stdin();
  const auto t0 = Clock::now();
  auto reap_all = [&] {
    bool all = true;
    for (auto& r : running_) {
      if (r->status < 0)
        if (const auto code = r->child.try_wait()) r->status = *code;
      all = all && r->status >= 0;
    }
    return all;
  };
  while (!reap_all() && seconds_since(t0) < grace_s) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::vector<process::ChildProcess*> left;
  for (auto& r : running_)
    if (r->status < 0) left.push_back(&r->child);
  if (!left.empty()) process::ChildProcess::stop_all(left, 1.0);
  reap_all();
  for (auto& r : running_)
    if (r->pump.joinable()) r->pump.join();
}

RemoteSuperviseResult RemoteWorkers::supervise(const RemoteSuperviseOptions& o) {
  const auto t0 = Clock::now();
  RemoteSuperviseResult res;
  std::optional<Clock::time_point> first_failure;
  auto statuses = [&] {
    std::vector<int> s;
    for (const auto& r : running_) s.push_back(r->status);
    return s;
  };
  auto finish = [&](std::string failure, int rank) {
    res.failure = std::move(failure);
    res.failed_rank = rank;
    stop(o.stop_grace_s);
    res.exit_status = statuses();
    res.wall_s = seconds_since(t0);
    return res;
  };
  for (;;) {
    if (o.interrupted && o.interrupted())
      return finish("interrupted by a signal: the workers on every host were stopped", -1);
    for (auto& r : running_)
      if (r->status < 0)
        if (const auto code = r->child.try_wait()) r->status = *code;
    // A rank counts once its output is drained too (its last stderr line is the explanation).
    int failed = -1;
    bool all_ok = true;
    for (std::size_t i = 0; i < running_.size(); ++i) {
      const auto& r = *running_[i];
      all_ok = all_ok && r.finished() && r.status == 0;
      if (!r.finished() || r.status == 0) continue;
      if (!first_failure) first_failure = Clock::now();
      // Prefer a rank killed by a signal (the cause) over peers that lost it; then the lowest.
      if (failed < 0 || (process::killed_by_signal(r.status) &&
                         !process::killed_by_signal(running_[static_cast<std::size_t>(failed)]->status)))
        failed = static_cast<int>(i);
    }
    if (all_ok) {
      for (auto& r : running_) r->close_stdin();
      for (auto& r : running_)
        if (r->pump.joinable()) r->pump.join();
      res.ok = true;
      res.exit_status = statuses();
      res.wall_s = seconds_since(t0);
      return res;
    }
    const bool all_done = std::all_of(running_.begin(), running_.end(), [](const auto& r) { return r->finished(); });
    if (failed >= 0 && (all_done || seconds_since(*first_failure) >= o.failure_window_s)) {
      auto& r = *running_[static_cast<std::size_t>(failed)];
      const auto& w = workers_[static_cast<std::size_t>(failed)];
      return finish(describe_remote_failure(w.rank, w.host, r.status, r.last_err()), w.rank);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(o.poll_s));
  }
}

}  // namespace geotrain::real
