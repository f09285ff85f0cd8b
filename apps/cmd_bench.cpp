// geotrain bench [--only ID[,ID...]] [--all] [--out FILE]: wall time and peak memory (in all and
// per simulated device) of `geotrain simulate` on the issues' cases, each in its own child
// process (bench/sim_bench.hpp). Without --only or --all: the original cases a to e-ddp.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "bench/sim_bench.hpp"
#include "sim/common/data_dir.hpp"
#include "sim/common/error.hpp"

namespace geotrain::cli {

void add_bench_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("bench", "measure simulate's speed and memory on the benchmark cases");
  struct Options {
    std::vector<std::string> only;
    bool all = false;
    std::string out = "results/bench/sim_bench.json";
    std::string source_dir = data_dir();
  };
  auto o = std::make_shared<Options>();
  cmd->add_option(
         "--only", o->only,
         "case ids to run, comma-separated or repeated; an id ending in '-' or '*' is a prefix "
         "('e-' runs every e-* case). Default: a, b-gpipe, b-ddp, c-gpipe, c-ddp, d-gpipe, "
         "d-ddp, e-gpipe, e-ddp. Only on request: c-/d-/e-<strategy> (4,096 / 16,384 / "
         "65,536 devices) for adpsgd, local-sgd, diloco, diloco-timeout, ps-gather-scatter, "
         "ps-sharded, ddp-bucketed, sdpipe-preduce, hetpipe, and f-gpipe, f-ddp (262,144)")
      ->delimiter(',');
  cmd->add_flag("--all", o->all,
                "run every case, the slow per-strategy and 262,144-device ones too");
  cmd->add_option("--out", o->out, "results JSON file");
  cmd->add_option("--source-dir", o->source_dir, "where scenarios/ lives");
  cmd->callback([&action, o] {
    action = [o] {
      nlohmann::ordered_json all = nlohmann::ordered_json::array();
      const auto cases = bench::sim_bench_cases(o->source_dir);
      for (const auto& id : o->only) {
        const bool matches =
            std::any_of(cases.begin(), cases.end(), [&id](const bench::SimBenchCase& c) {
              return bench::sim_bench_selected(c, {id}, false);
            });
        if (!matches) {
          throw InputError("--only " + id +
                           ": no such bench case (expected an id, or a prefix ending in - or *; "
                           "see geotrain bench --help)");
        }
      }
      fmt::print("{:<22} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>14}  {}\n", "case", "ranks",
                 "build s", "sim s", "total s", "cpu s", "peak MB", "KB/dev", "iteration s",
                 "what");
      bool failed = false;
      for (const auto& c : cases) {
        if (!bench::sim_bench_selected(c, o->only, o->all)) continue;
        const auto r = bench::run_sim_bench_case(c);
        if (!r.ok) {
          fmt::print("{:<22} failed: {}\n", c.id, r.error);
          failed = true;
          continue;
        }
        fmt::print(
            "{:<22} {:>7} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.3f} {:>9.1f} {:>8.1f} {:>14.3f}  {}\n",
            c.id, r.world_size, r.build_program_s, r.simulate_s, r.total_s, r.cpu_s,
            r.peak_rss_bytes / 1e6, r.peak_rss_per_device_bytes / 1e3, r.iteration_time_s, c.what);
        all.push_back({{"case", c.id},
                       {"scenario", c.scenario},
                       {"sets", c.sets},
                       {"what", c.what},
                       {"ranks", r.world_size},
                       {"build_program_s", r.build_program_s},
                       {"simulate_s", r.simulate_s},
                       {"total_s", r.total_s},
                       {"cpu_s", r.cpu_s},
                       {"peak_rss_bytes", r.peak_rss_bytes},
                       {"peak_rss_per_device_bytes", r.peak_rss_per_device_bytes},
                       {"iteration_time_s", r.iteration_time_s}});
      }
      const auto parent = std::filesystem::path(o->out).parent_path();
      if (!parent.empty()) std::filesystem::create_directories(parent);
      std::ofstream f(o->out);
      if (!f) throw SystemError("open " + o->out + " for writing", errno, "");
      f << all.dump(2) << "\n";
      fmt::print("written: {}\n", o->out);
      return failed ? 1 : 0;
    };
  });
}

}  // namespace geotrain::cli
