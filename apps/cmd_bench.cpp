// geotrain bench [--only ID] [--out FILE]: wall time and peak memory of `geotrain simulate` on
// the cases, each in its own child process (bench/sim_bench.hpp).
#include <fmt/format.h>

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
    std::string out = "results/bench/sim_bench.json";
    std::string source_dir = data_dir();
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--only", o->only, "case ids to run (a, b-gpipe, b-ddp, c-gpipe, c-ddp, d-gpipe, d-ddp, e-gpipe, e-ddp)");
  cmd->add_option("--out", o->out, "results JSON file");
  cmd->add_option("--source-dir", o->source_dir, "where scenarios/ lives");
  cmd->callback([&action, o] {
    action = [o] {
      nlohmann::ordered_json all = nlohmann::ordered_json::array();
      fmt::print("{:<8} {:>6} {:>10} {:>10} {:>10} {:>10} {:>10} {:>14}  {}\n", "case", "ranks",
                 "build s", "sim s", "total s", "cpu s", "peak MB", "iteration s", "what");
      bool failed = false;
      for (const auto& c : bench::sim_bench_cases(o->source_dir)) {
        if (!o->only.empty() && std::find(o->only.begin(), o->only.end(), c.id) == o->only.end()) continue;
        const auto r = bench::run_sim_bench_case(c);
        if (!r.ok) {
          fmt::print("{:<8} failed: {}\n", c.id, r.error);
          failed = true;
          continue;
        }
        fmt::print("{:<8} {:>6} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.3f} {:>10.1f} {:>14.3f}  {}\n",
                   c.id, r.world_size, r.build_program_s, r.simulate_s, r.total_s, r.cpu_s,
                   r.peak_rss_bytes / 1e6, r.iteration_time_s, c.what);
        all.push_back({{"case", c.id}, {"scenario", c.scenario}, {"sets", c.sets}, {"what", c.what},
                       {"ranks", r.world_size}, {"build_program_s", r.build_program_s},
                       {"simulate_s", r.simulate_s}, {"total_s", r.total_s}, {"cpu_s", r.cpu_s},
                       {"peak_rss_bytes", r.peak_rss_bytes}, {"iteration_time_s", r.iteration_time_s}});
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
