#pragma once
// The sweep's progress line on stderr: done/total, rate and ETA. On a terminal it rewrites one
// line (at most 4 times a second); otherwise (a log file, Slurm) it prints a line every 10 s.
#include <chrono>
#include <cstddef>
#include <string>

namespace geotrain::sweep {

class ProgressMeter {
 public:
  explicit ProgressMeter(std::size_t total);
  void update(std::size_t done, std::size_t skipped);
  // The final line (always printed).
  void finish(std::size_t done, std::size_t skipped);
  // Prints a message on its own line without breaking the progress line.
  void note(const std::string& line);

 private:
  std::string text(std::size_t done, std::size_t skipped) const;
  std::size_t total_;
  bool terminal_;
  std::chrono::steady_clock::time_point start_, last_;
  bool shown_ = false;
};

// "1h02m", "3m05s", "12s".
std::string format_duration(double seconds);

// The estimate a sweep prints once its first wave of `sampled` runs is done: `remaining` more
// runs, `jobs` at a time, each taking the sample's mean wall time.
std::string estimate_text(std::size_t sampled, double mean_s, std::size_t remaining, int jobs);

}  // namespace geotrain::sweep
