// The sections that say how to run a scenario rather than what it is:
//   placement:  {kind: identity | random | file | scheduler, seed: 1, file: assignment.json}
//               (seed only with kind random, file only with kind file)
//   scheduler:  {name: gcma, population: 100, trials: 4900, gradient_size: 0.65GB,
//                activation_size: 0.4712GB}
//   simulation: {network_model: flow | tcp, platform: auto | pairs | regions, iterations: 1, compute_profile: profile.json,
//                aggregate_collectives_above: 64, ring_closed_form_above: 8192, twin_ranks: true, rendezvous: false, buffered_sends: false,
//                payload_efficiency: 1, compute_variance: median | sampled | steps | machine, variance_seed: 0,
//                host_cores: 0,
//                host_background_cores: 0}
//   emulation:  {workers: 8, bandwidth_scale: 0.01, delay_scale: 1, delay_backend: auto,
//                torch_threads: 1, collectives: p2p | gloo | nccl, device: cpu | cuda,
//                congestion_control: reno | bbr}
//   stragglers: {probability: 0.1, sleep: 100ms, seed: 7}
#include <fmt/format.h>

#include <filesystem>

#include "sim/common/safe_path.hpp"
#include "sim/scenario/sections.hpp"

namespace geotrain::sections {

std::optional<std::string> Context::resolve(const std::string& file, int line,
                                            const std::string& key) const {
  const std::filesystem::path p(file);
  if (p.is_absolute()) return p.string();
  const std::filesystem::path root = base_dir.empty() ? "." : base_dir;
  const std::filesystem::path full = (root / p).lexically_normal();
  if (file.empty() || !stays_under(root, full)) {
    diag.error(line, key, file,
               fmt::format("leaves the scenario's folder {} (expected a file in it or below it, "
                           "or an absolute path)",
                           root.string()));
    return std::nullopt;
  }
  return base_dir.empty() ? p.lexically_normal().string() : full.string();
}

void parse_placement(Context& ctx, YamlSection s, Scenario& out) {
  PlacementSpec& p = out.placement;
  const auto kind = s.choice("kind", {"identity", "random", "file", "scheduler"}, "placement kind");
  if (kind) {
    p.kind = *kind == "identity" ? PlacementKind::identity
             : *kind == "random" ? PlacementKind::random
             : *kind == "file"   ? PlacementKind::file
                                 : PlacementKind::scheduler;
  }
  // seed and file are each read by one kind only; with another they used to be accepted and
  // ignored (a sweep over placement.file with kind identity ran one placement at every point).
  // A kind that is itself wrong was reported above: its keys are then checked as usual.
  const bool kind_known = kind || !s.has("kind");
  auto applies = [&](const std::string& key, PlacementKind needs, const char* needs_name) {
    if (!s.has(key) || p.kind == needs || !kind_known) return true;
    const YAML::Node value = s.raw(key);  // a known key, only one the kind does not read
    const std::string message = fmt::format(
        "has no effect with placement.kind '{}'{} (expected placement.kind: {}, or no "
        "placement.{})",
        kind.value_or("identity"), kind ? "" : ", the default", needs_name, key);
    if (value.IsScalar())
      ctx.diag.error(s.line_of(key), s.key_path(key), value.Scalar(), message);
    else
      ctx.diag.error(s.line_of(key), s.key_path(key), message);
    return false;
  };
  if (applies("seed", PlacementKind::random, "random"))
    if (auto seed = s.integer("seed", 0, INT64_MAX)) p.seed = static_cast<std::uint64_t>(*seed);
  if (applies("file", PlacementKind::file, "file")) {
    if (auto file = s.text("file", p.kind == PlacementKind::file)) {
      p.file = ctx.resolve(*file, s.line_of("file"), "placement.file").value_or("");
      if (!p.file.empty() && !std::filesystem::exists(p.file))
        ctx.diag.error(s.line_of("file"), "placement.file", *file,
                       fmt::format("no such file ({})", p.file));
    }
  }
  s.finish();
}

void parse_scheduler(Context&, YamlSection s, Scenario& out) {
  SchedulerSpec& sc = out.scheduler;
  if (auto name = s.choice("name", {"gcma", "random", "baseline"}, "scheduler")) sc.name = *name;
  if (auto p = s.integer("population", 2, 1'000'000)) sc.population = static_cast<int>(*p);
  if (auto t = s.integer("trials", 0, 100'000'000)) sc.trials = static_cast<int>(*t);
  if (auto g = s.bytes("gradient_size", ranges::kModelBytes)) sc.gradient_bytes = *g;
  if (auto a = s.bytes("activation_size", ranges::kModelBytes)) sc.activation_bytes = *a;
  s.finish();
}

void parse_simulation(Context& ctx, YamlSection s, Scenario& out) {
  SimulationSpec& sim = out.simulation;
  if (auto m = s.choice("network_model", {"flow", "tcp"}, "network model"))
    sim.network_model = *m == "flow" ? NetworkModel::flow : NetworkModel::tcp;
  if (auto i = s.integer("iterations", 1, 1'000'000)) sim.iterations = static_cast<int>(*i);
  if (auto k = s.choice("platform", {"auto", "pairs", "regions"}, "platform")) {
    sim.platform = *k == "pairs" ? PlatformChoice::pairs
                   : *k == "regions" ? PlatformChoice::regions
                                     : PlatformChoice::automatic;
    // A matrix has no regions to give NICs their rate.
    if (sim.platform == PlatformChoice::regions && !out.network.is_regional())
      ctx.diag.error(s.line_of("platform"), "simulation.platform", *k,
                     "needs a regional network (network.regions or a DT-FM case), not a matrix (expected auto or pairs)");
  }
  if (auto f = s.text("compute_profile")) {
    sim.compute_profile =
        ctx.resolve(*f, s.line_of("compute_profile"), "simulation.compute_profile").value_or("");
    if (!sim.compute_profile.empty() && !std::filesystem::exists(sim.compute_profile))
      ctx.diag.error(s.line_of("compute_profile"), "simulation.compute_profile", *f,
                     fmt::format("no such file ({})", sim.compute_profile));
  }
  if (auto c = s.integer("host_cores", 0, 4096)) sim.host_cores = static_cast<int>(*c);
  if (auto b = s.number("host_background_cores", 0, 4096)) {
    sim.host_background_cores = *b;
    if (*b >= sim.host_cores && sim.host_cores > 0)
      ctx.diag.error(s.line_of("host_background_cores"), "simulation.host_background_cores",
                     fmt::format("{}", *b), fmt::format("expected fewer than host_cores ({})", sim.host_cores));
  }
  if (auto a = s.integer("aggregate_collectives_above", 2, 100'000'000))
    sim.aggregate_collectives_above = static_cast<int>(*a);
  if (auto a = s.integer("ring_closed_form_above", 2, 100'000'000))
    sim.ring_closed_form_above = static_cast<int>(*a);
  if (auto t = s.boolean("twin_ranks")) sim.twin_ranks = *t;
  if (auto r = s.boolean("rendezvous")) sim.rendezvous = *r;
  if (auto b = s.boolean("buffered_sends")) sim.buffered_sends = *b;
  if (auto e = s.number("payload_efficiency", 0.01, 1)) sim.payload_efficiency = *e;
  if (auto v = s.choice("compute_variance", compute_variance_names(), "compute variance")) {
    sim.compute_variance = *compute_variance_named(*v);
    // Sampling draws from the measured samples; without a profile there is nothing to draw from
    // (the device model has no spread), so silently running the median would mislead.
    if (sim.compute_variance != ComputeVariance::median && !s.has("compute_profile"))
      ctx.diag.error(s.line_of("compute_variance"), "simulation.compute_variance", *v,
                     "needs simulation.compute_profile (expected a measured profile to draw "
                     "from, or compute_variance: median)");
  }
  if (auto seed = s.integer("variance_seed", 0, INT64_MAX)) sim.variance_seed = static_cast<std::uint64_t>(*seed);
  s.finish();
}

void parse_emulation(Context& ctx, YamlSection s, Scenario& out) {
  EmulationSpec& e = out.emulation;
  if (auto w = s.integer("workers", 1, 4096)) {
    e.workers = static_cast<int>(*w);
    if (!out.devices.empty() && e.workers != static_cast<int>(out.devices.size()))
      ctx.diag.error(s.line_of("workers"), "emulation.workers", std::to_string(*w),
                     fmt::format("the scenario has {} devices (expected one worker per device)",
                                 out.devices.size()));
  }
  if (auto b = s.number("bandwidth_scale", 1e-6, 1e6)) e.bandwidth_scale = *b;
  if (auto d = s.number("delay_scale", 0, 1e6)) e.delay_scale = *d;
  if (auto b = s.choice("delay_backend", {"auto", "netem", "nfqueue"}, "delay backend"))
    e.delay_backend = *b == "auto" ? DelayBackend::auto_detect
                      : *b == "netem" ? DelayBackend::netem
                                      : DelayBackend::nfqueue;
  if (auto t = s.integer("torch_threads", 1, 256)) e.torch_threads = static_cast<int>(*t);
  const auto device = s.choice("device", {"cpu", "cuda"}, "worker device");
  if (device) e.device = *device;
  if (auto c = s.choice("collectives", {"p2p", "gloo", "nccl"}, "collective implementation")) {
    e.collectives = *c;
    // NCCL moves tensors between GPUs only: a CPU worker has nothing it could send.
    // (An unknown device was reported already: not again through this key.)
    if (*c == "nccl" && e.device != "cuda" && (device || !s.has("device")))
      ctx.diag.error(s.line_of("collectives"), "emulation.collectives", *c,
                     fmt::format("needs emulation.device: cuda (the device is {}; expected collectives p2p "
                                 "or gloo on CPU workers)", e.device));
  }
  if (auto c = s.choice("congestion_control", {"reno", "bbr"}, "TCP congestion control"))
    e.congestion_control = *c;
  s.finish();
}

void parse_stragglers(Context&, YamlSection s, Scenario& out) {
  StragglerSpec& st = out.stragglers;
  if (auto p = s.number("probability", 0, 1)) st.probability = *p;
  if (auto d = s.duration_s("sleep", ranges::kRunTime)) st.sleep_s = *d;
  if (auto seed = s.integer("seed", 0, INT64_MAX)) st.seed = static_cast<std::uint64_t>(*seed);
  s.finish();
}

}  // namespace geotrain::sections
