#pragma once
// What one point x strategy produced, kept as one small JSON file per run in
// DIR/points/<hash>.json. The file is written under a temporary name and renamed, so a killed sweep
// leaves either the whole result or none; a rerun skips every hash that has a file.
#include <optional>
#include <string>
#include <vector>

namespace geotrain::sweep {

struct PointResult {
  std::string hash;
  std::size_t point = 0;
  std::string strategy;             // label
  std::vector<std::string> values;  // the varied values, for people reading the file
  bool ok = false;                  // false: skipped (invalid scenario or failed run)
  std::string reason;               // why it was skipped
  double iteration_time_s = 0;
  double tokens_per_s = 0;
  double samples_per_s = 0;
  double bytes_per_step = 0;  // every rank's bytes on the wire per training step
  // The compute share of an iteration: mean over ranks of their compute seconds per iteration,
  // over the iteration time (simulate's "compute / comm / idle" first percentage, as a fraction).
  double compute_share = 0;
};

std::string result_path(const std::string& points_dir, const std::string& hash);
// Writes <points_dir>/<hash>.json atomically (temporary file, fsync, rename).
void write_result(const std::string& points_dir, const PointResult& r);
// The result stored for `hash`, if any (a file that does not parse counts as absent).
std::optional<PointResult> read_result(const std::string& points_dir, const std::string& hash);

}  // namespace geotrain::sweep
