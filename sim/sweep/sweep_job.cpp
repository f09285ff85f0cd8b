#include "sim/sweep/sweep_job.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/common/error.hpp"
#include "sim/sweep/spec_check.hpp"
#include "sim/sweep/sweep_manifest.hpp"

namespace geotrain::sweep {

namespace fs = std::filesystem;

std::string points_dir_of(const std::string& dir) {
  return (fs::path(dir) / "points").string();
}

void check_output_folder(const std::string& dir, const std::string& spec_name) {
  const fs::path manifest = fs::path(dir) / "sweep.json";
  if (fs::exists(dir) && !fs::is_directory(dir))
    throw InputError(
        fmt::format("--out {}: not a directory (expected a folder for the sweep's results)", dir));
  if (!fs::exists(manifest)) return;
  const auto spec = read_spec_json(manifest.string());
  if (spec.value("name", "") != spec_name)
    throw InputError(
        fmt::format("--out {}: holds the results of sweep '{}' (expected an empty folder or "
                    "one of sweep '{}')",
                    dir, spec.value("name", ""), spec_name));
}

std::string run_count_text(const SweepSpec& spec, const Shard& shard) {
  auto counted = [](std::size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  const std::string runs = counted(shard_run_count(spec, shard), "run", "runs");
  const std::string strategies = counted(spec.strategies.size(), "strategy", "strategies");
  if (shard.count == 1)
    return fmt::format("{} ({} x {})", runs, counted(point_count(spec), "point", "points"),
                       strategies);
  return fmt::format("{} in shard {}/{} ({} of {} x {})", runs, shard.index, shard.count,
                     shard_point_count(spec, shard), counted(point_count(spec), "point", "points"),
                     strategies);
}

void check_run_bound(const SweepSpec& spec, const Shard& shard, std::size_t max_runs) {
  const std::size_t runs = shard_run_count(spec, shard);
  if (runs <= max_runs) return;
  throw InputError(fmt::format(
      "{}: {} exceed --max-runs {}{} (expected at most {} runs per sweep or shard; pass "
      "--max-runs {} to run them all, or split the grid with --shard i/n)",
      spec.path, run_count_text(spec, shard), max_runs,
      max_runs == kDefaultMaxRuns ? " (the default)" : "", max_runs, runs));
}

SweepOutcome run_sweep(const SweepJobOptions& o) {
  const SweepSpec spec = load_sweep_spec(o.spec);
  const std::string base_text = read_base_text(spec);
  check_against_base(spec, base_text);
  check_run_bound(spec, o.shard, o.max_runs);
  SweepOutcome outcome;
  outcome.dir = o.out.empty() ? (fs::path("results") / "sweeps" / spec.name).string() : o.out;
  check_output_folder(outcome.dir, spec.name);
  // The size of the work before the work: the runner adds an estimate after its first wave.
  fmt::print(stderr, "sweep: {}: {}\n", spec.path, run_count_text(spec, o.shard));
  const auto runs = expand(spec, base_text, o.shard);
  const std::string points = points_dir_of(outcome.dir);
  fs::create_directories(points);
  SweepRunner runner(spec, base_text, points, o.jobs > 0 ? o.jobs : default_jobs());
  outcome.run = runner.run(runs);
  outcome.table =
      write_sweep_csv(spec, runs, points, (fs::path(outcome.dir) / "sweep.csv").string());
  write_sweep_json((fs::path(outcome.dir) / "sweep.json").string(), spec, base_text, o.shard,
                   outcome.table);
  return outcome;
}

}  // namespace geotrain::sweep
