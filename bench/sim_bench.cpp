#include "bench/sim_bench.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/engine/simulation.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace geotrain::bench {

namespace {

double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Runs in the child: one simulation, figures as JSON.
nlohmann::json measure(const SimBenchCase& c) {
  try {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> sets = c.sets;
    sets.push_back("simulation.iterations=1");
    const Scenario s = load_scenario(c.scenario, sets);
    const auto t1 = std::chrono::steady_clock::now();
    const Program p = build_program(s);
    const double build_s = since(t1);
    const auto r = engine::simulate(s, p);
    return {{"ok", true}, {"world_size", p.world_size}, {"build_program_s", build_s},
            {"simulate_s", r.simulation_wall_s}, {"total_s", since(t0)},
            {"iteration_time_s", r.iteration_time_s}};
  } catch (const std::exception& e) {
    return {{"ok", false}, {"error", e.what()}};
  }
}

}  // namespace

std::vector<SimBenchCase> sim_bench_cases(const std::string& source_dir) {
  const std::string dir = source_dir + "/scenarios/";
  return {
      {"a", dir + "paper/dtfm_case5.yaml", "DT-FM case 5, GPT-3 XL, 64 devices, gpipe 8x8"},
      {"b-gpipe", dir + "bench/world_1024_gpipe.yaml", "1,024 devices, 10 cities, gpipe 16x64"},
      {"b-ddp", dir + "bench/world_1024_ddp.yaml", "1,024 devices, 10 cities, ddp ring all-reduce"},
      {"c-gpipe", dir + "bench/world_4096_gpipe.yaml", "4,096 devices, 10 cities, gpipe 16x256"},
      {"c-ddp", dir + "bench/world_4096_ddp.yaml", "4,096 devices, 10 cities, ddp ring all-reduce"},
      // Internet scale: the same worlds with 4x and 16x the replicas (a ddp replica needs at
      // least one sequence of the global batch, so ddp's batch grows with it).
      {"d-gpipe", dir + "bench/world_4096_gpipe.yaml", "16,384 devices, 10 cities, gpipe 16x1024",
       {"devices.count=16384", "strategy.replicas=1024"}},
      {"d-ddp", dir + "bench/world_4096_ddp.yaml", "16,384 devices, 10 cities, ddp ring all-reduce",
       {"devices.count=16384", "training.global_batch=32768"}},
      {"e-gpipe", dir + "bench/world_4096_gpipe.yaml", "65,536 devices, 10 cities, gpipe 16x4096",
       {"devices.count=65536", "strategy.replicas=4096"}},
      {"e-ddp", dir + "bench/world_4096_ddp.yaml", "65,536 devices, 10 cities, ddp ring all-reduce",
       {"devices.count=65536", "training.global_batch=131072"}},
  };
}

SimBenchResult run_sim_bench_case(const SimBenchCase& c) {
  SimBenchResult r;
  r.c = c;
  char path[] = "/tmp/geotrain-bench-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) {
    r.error = "mkstemp failed";
    return r;
  }
  close(fd);
  std::fflush(nullptr);  // or the child's exit path may repeat the parent's buffered output
  const pid_t pid = fork();
  if (pid == 0) {
    std::ofstream(path) << measure(c).dump();
    std::_Exit(0);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path);
  r.peak_rss_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
  r.cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
            1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  if (!WIFEXITED(status) || text.str().empty()) {
    r.error = "child crashed (status " + std::to_string(status) + ")";
    return r;
  }
  const auto j = nlohmann::json::parse(text.str());
  r.ok = j.at("ok").get<bool>();
  if (!r.ok) {
    r.error = j.at("error").get<std::string>();
    return r;
  }
  r.world_size = j.at("world_size").get<int>();
  r.build_program_s = j.at("build_program_s").get<double>();
  r.simulate_s = j.at("simulate_s").get<double>();
  r.total_s = j.at("total_s").get<double>();
  r.iteration_time_s = j.at("iteration_time_s").get<double>();
  return r;
}

}  // namespace geotrain::bench
