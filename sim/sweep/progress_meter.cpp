#include "sim/sweep/progress_meter.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace geotrain::sweep {

std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s % 3600) / 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

std::string estimate_text(std::size_t sampled, double mean_s, std::size_t remaining, int jobs) {
  const std::size_t per_wave = static_cast<std::size_t>(std::max(1, jobs));
  const double total_s = mean_s * static_cast<double>((remaining + per_wave - 1) / per_wave);
  return fmt::format(
      "sweep: estimate: {} more for the other {} runs at --jobs {} (the first {} run{}, "
      "spread over the grid, took {} each on average; runs differ in size, so this is a "
      "rough guide that the progress line's ETA refines)",
      total_s < 1 ? "under 1s" : "about " + format_duration(total_s), remaining, jobs, sampled,
      sampled == 1 ? "" : "s",
      mean_s < 60 ? fmt::format("{:.3g} s", mean_s) : format_duration(mean_s));
}

ProgressMeter::ProgressMeter(std::size_t total)
    : total_(total),
      terminal_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

std::string ProgressMeter::text(std::size_t done, std::size_t skipped) const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  const std::string eta =
      rate > 0 ? format_duration(static_cast<double>(total_ - done) / rate) : "?";
  return fmt::format("sweep: {}/{} runs done ({} skipped), {:.1f} runs/s, elapsed {}, ETA {}", done,
                     total_, skipped, rate, format_duration(elapsed), eta);
}

void ProgressMeter::update(std::size_t done, std::size_t skipped) {
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (since < (terminal_ ? 0.25 : 10.0)) return;
  last_ = now;
  if (terminal_) {
    fmt::print(stderr, "\r{}\033[K", text(done, skipped));
    shown_ = true;
  } else {
    fmt::print(stderr, "{}\n", text(done, skipped));
  }
  std::fflush(stderr);
}

void ProgressMeter::finish(std::size_t done, std::size_t skipped) {
  fmt::print(stderr, "{}{}\n", terminal_ ? "\r" : "",
             text(done, skipped) + (terminal_ ? "\033[K" : ""));
  shown_ = false;
}

void ProgressMeter::note(const std::string& line) {
  fmt::print(stderr, "{}{}\n", terminal_ && shown_ ? "\r\033[K" : "", line);
  shown_ = false;
}

}  // namespace geotrain::sweep
