#include "sim/engine/simulation.hpp"

#include <fmt/format.h>
#include <malloc.h>
#include <simgrid/s4u.hpp>

#include <chrono>
#include <limits>
#include <set>

#include "sim/common/error.hpp"
#include "sim/common/log.hpp"
#include "sim/engine/collective_runner.hpp"
#include "sim/engine/metrics.hpp"
#include "sim/engine/network_config.hpp"
#include "sim/engine/rank_actor.hpp"
#include "sim/scenario/scenario_bandwidth.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

namespace {

// Beyond this many actors SimGrid's guard pages exhaust the kernel's memory-map limit.
constexpr int kManyActors = 8000;
// Above the actor stack size (network_config.cpp): stacks come from the heap (see simulate).
constexpr int kMmapThresholdBytes = 1024 * 1024;

void check_devices(const Program& program, const Topology& network) {
  std::vector<std::string> problems;
  std::set<int> used;
  if (static_cast<int>(program.device_of_rank.size()) != program.world_size ||
      static_cast<int>(program.ranks.size()) != program.world_size)
    throw Error(fmt::format("program '{}': world_size {} but {} device entries and {} op lists",
                            program.strategy, program.world_size, program.device_of_rank.size(),
                            program.ranks.size()));
  for (int r = 0; r < program.world_size; ++r) {
    const int d = program.device_of_rank[static_cast<std::size_t>(r)];
    if (d < 0 || d >= network.device_count())
      problems.push_back(fmt::format("rank {} runs on device {}, but the network has devices 0 to {}",
                                     r, d, network.device_count() - 1));
    else if (!used.insert(d).second)
      problems.push_back(fmt::format("rank {} shares device {} with another rank (the engine "
                                     "models one rank per device)", r, d));
  }
  if (!problems.empty()) throw InputError(problems);
}

EngineSettings settings_for(const Scenario& s, const SimulationOptions& o) {
  EngineSettings e;
  e.iterations = o.iterations > 0 ? o.iterations : s.simulation.iterations;
  e.network_model = o.network_model.value_or(s.simulation.network_model);
  e.tcp_buffer_bytes = s.tcp_buffer_bytes;
  e.aggregate_collectives_above = s.simulation.aggregate_collectives_above;
  e.ring_closed_form_above = s.simulation.ring_closed_form_above;
  e.twin_ranks = s.simulation.twin_ranks;
  e.rendezvous = s.simulation.rendezvous;
  e.buffered_sends = s.simulation.buffered_sends;
  e.library_collectives = s.emulation.collectives == "gloo";
  e.nccl_collectives = s.emulation.collectives == "nccl";
  e.stragglers = s.stragglers;
  return e;
}

}  // namespace

SimulationResult simulate(const Scenario& scenario, const Program& program,
                          const SimulationOptions& options, const ComputeSeconds& compute) {
  // payload_efficiency: links carry payload at that share of their (shaped) wire rate.
  const Topology network = scenario.network.scaled(
      scenario.emulation.bandwidth_scale * scenario.simulation.payload_efficiency,
      scenario.emulation.delay_scale);
  check_devices(program, network);
  const EngineSettings settings = settings_for(scenario, options);
  check_collectives(program, settings);

  auto args = simgrid_arguments(settings.network_model, settings.tcp_buffer_bytes,
                                3 * program.world_size > kManyActors, !scenario.bandwidth_changes.empty());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  // SimGrid allocates each actor's stack with calloc when guard pages are off. Two ways to keep
  // only the pages an actor really uses resident, measured on world_4096_* (bench):
  // - a fixed mmap threshold below the stack size makes every stack its own lazily zeroed
  //   mapping; but each is an mmap and, when the actor ends, a munmap (33 us each on this VM;
  //   a profile of the 16,384-device gpipe run put 13% of its time in munmap, 4.6% in mmap);
  // - the heap, as here: glibc's calloc does not clear memory it has just taken from the kernel
  //   with brk (fresh pages are zero), only the part of the old top chunk it hands out. With no
  //   top pad that part is under a page, so a stack costs one brk and its used pages, and
  //   freeing it is a free-list insert. The thresholds are fixed, not glibc's adaptive ones
  //   (those rise past a freed stack's size and later clear whole reused stacks, 256 KiB each:
  //   1.2 GB for 4,096 ddp ranks), and memory is never trimmed back mid-run.
  // Stacks freed mid-run (short-lived send actors) are reused, and cleared then: bounded by the
  // actors alive at once.
  mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes);
  mallopt(M_TOP_PAD, 0);
  mallopt(M_TRIM_THRESHOLD, std::numeric_limits<int>::max());
  const auto wall0 = std::chrono::steady_clock::now();
  sg4::Engine engine(&argc, argv.data());
  // The same resolution of network.bandwidth_changes the emulator applies.
  const BandwidthSchedule changes = resolve_bandwidth_schedule(scenario);
  PlatformOptions platform_options = options.platform;
  platform_options.shared_cores = scenario.simulation.host_cores;
  if (scenario.simulation.platform != PlatformChoice::automatic)
    platform_options.forced =
        scenario.simulation.platform == PlatformChoice::pairs ? PlatformKind::pairs : PlatformKind::regions;
  platform_options.background_cores = scenario.simulation.host_background_cores;
  SimContext ctx(program, settings, compute, build_platform(network, platform_options, changes));
  for (const auto& w : ctx.platform().warnings) log::warning("sim.engine", "{}", w);
  for (int r = 0; r < program.world_size; ++r)
    if (ctx.simulated(r))
      sg4::Actor::create(fmt::format("rank {}", r), ctx.host_of_rank(r), RankActor(ctx, r));
  if (const auto& twins = ctx.twin_ranks(); twins.on())
    log::info("sim.engine", "{} of {} ranks simulated, each standing for its twins (ranks whose "
              "run is a copy of its own; twin_ranks.hpp)", twins.simulated, program.world_size);
  else
    log::debug("sim.engine", "every rank simulated, no twin ranks: {}", twins.why_off);
  for (P2PHub* hub : ctx.hubs())
    sg4::Actor::create(fmt::format("hub of rank {}", hub->rank()), ctx.host_of_rank(hub->rank()),
                       [hub] { hub->run(); })
        ->daemonize();
  std::string kernel_error;
  try {
    engine.run();
  } catch (const std::exception& e) {
    kernel_error = e.what();  // SimGrid throws when every remaining actor waits forever
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

  std::vector<int> stuck;
  for (int r = 0; r < program.world_size; ++r)
    if (!ctx.finished()[static_cast<std::size_t>(r)]) stuck.push_back(r);
  if (!stuck.empty())
    throw Error(fmt::format("simulation of '{}' deadlocked at t = {} s: {} rank(s) never finished "
                            "(first: rank {}); check that every Send has its Recv and every "
                            "group member enters the same collectives",
                            program.strategy, sg4::Engine::get_clock(), stuck.size(), stuck[0]));
  if (!kernel_error.empty()) throw Error("SimGrid: " + kernel_error);
  SimulationResult result = summarize(ctx, scenario);
  result.simulation_wall_s = wall_s;
  result.simulated_ranks = ctx.twin_ranks().simulated;
  return result;
}

}  // namespace geotrain::engine
