#include "sim/sweep/sweep_merge.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/common/error.hpp"
#include "sim/sweep/spec_check.hpp"
#include "sim/sweep/sweep_manifest.hpp"

namespace geotrain::sweep {

namespace fs = std::filesystem;

namespace {

// Copies finished result files (never a *.tmp.<pid> left by a killed run).
void copy_results(const std::string& from, const std::string& to) {
  if (fs::equivalent(from, to)) return;
  for (const auto& entry : fs::directory_iterator(from)) {
    if (entry.path().extension() != ".json") continue;
    fs::copy_file(entry.path(), fs::path(to) / entry.path().filename(),
                  fs::copy_options::overwrite_existing);
  }
}

}  // namespace

SweepOutcome merge_sweeps(const MergeOptions& o) {
  if (o.dirs.empty())
    throw InputError("--merge: no folders given (expected the output folders of the shards)");
  std::vector<std::string> problems;
  const auto first = read_spec_json((fs::path(o.dirs[0]) / "sweep.json").string());
  for (std::size_t i = 1; i < o.dirs.size(); ++i)
    if (read_spec_json((fs::path(o.dirs[i]) / "sweep.json").string()) != first)
      problems.push_back(
          fmt::format("{}/sweep.json: spec: differs from {}/sweep.json's (expected shards of "
                      "one sweep: same spec and base scenario)",
                      o.dirs[i], o.dirs[0]));
  for (const auto& d : o.dirs)
    if (!fs::is_directory(points_dir_of(d)))
      problems.push_back(
          fmt::format("{}: no points/ folder (expected the output folder of a geotrain sweep)", d));
  if (!problems.empty()) throw InputError(problems);

  const SweepSpec spec = load_sweep_spec(o.spec.empty() ? first.value("file", "") : o.spec);
  const std::string base_text = read_base_text(spec);
  auto same = [](nlohmann::ordered_json j) {
    j.erase("file");  // the same spec may be named by another path
    return j;
  };
  if (same(spec_json(spec, base_text)) != same(first))
    throw InputError(
        fmt::format("{}: the spec or its base scenario changed since the shards ran (expected "
                    "the same spec as {}/sweep.json)",
                    spec.path, o.dirs[0]));
  SweepOutcome outcome;
  outcome.dir = o.out.empty() ? (fs::path("results") / "sweeps" / spec.name).string() : o.out;
  check_output_folder(outcome.dir, spec.name);
  const std::string points = points_dir_of(outcome.dir);
  fs::create_directories(points);
  for (const auto& d : o.dirs) copy_results(points_dir_of(d), points);
  const auto runs = expand(spec, base_text);
  outcome.run.total = runs.size();
  outcome.run.already_done = runs.size();
  outcome.table =
      write_sweep_csv(spec, runs, points, (fs::path(outcome.dir) / "sweep.csv").string());
  write_sweep_json((fs::path(outcome.dir) / "sweep.json").string(), spec, base_text, Shard{},
                   outcome.table);
  return outcome;
}

}  // namespace geotrain::sweep
