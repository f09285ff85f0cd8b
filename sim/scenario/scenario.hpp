#pragma once
// A typed scenario: everything geotrain needs to simulate, schedule or emulate one training setup.
// Produced by load_scenario() (scenario_loader.hpp) from YAML; all values in SI units.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/topology/bandwidth_change.hpp"
#include "sim/topology/topology.hpp"
#include "sim/scenario/model_spec.hpp"

namespace geotrain {

// What the compute model knows of a device: peak dense rates (tensor cores where the device has
// them, without sparsity), memory, memory bandwidth and the share of peak it reaches. The
// bundled ones come from the device library (device_library.hpp, with their sources).
struct DeviceProfile {
  std::string name;
  double peak_fp32_flops = 0;
  // TF32 tensor-core matmuls (fp32 storage). Recorded, not yet used: a model dtype tf32 does not
  // exist (the worker computes in fp32 and DType also names wire formats; docs/devices.md).
  double peak_tf32_flops = 0;
  double peak_bf16_flops = 0;  // 0: the fp16 peak (custom profiles before bf16 existed)
  double peak_fp16_flops = 0;
  double memory_bytes = 0;
  // HBM/DRAM bytes/s for memory-bound ops; 0: unknown, the compute model assumes 0.06 byte per
  // fp32 flop (sim/workload/compute_model.cpp).
  double memory_bandwidth_Bps = 0;
  double efficiency = 0.4;  // achieved / peak for dense transformer layers
  double peak_flops(DType t) const {
    switch (t) {
      case DType::fp32:
        return peak_fp32_flops;
      case DType::bf16:
        return peak_bf16_flops > 0 ? peak_bf16_flops : peak_fp16_flops;
      case DType::fp16:
        return peak_fp16_flops;
    }
    return peak_fp16_flops;
  }
};

// Built-in profiles by name: every device library entry (device_library.hpp), aliases included.
const std::map<std::string, DeviceProfile>& builtin_device_profiles();

struct Device {
  int id = 0;
  std::string profile;  // key into Scenario::profiles
  double slowdown = 1;  // compute time multiplier (stragglers, older cards)
};

enum class NetworkModel { flow, tcp };
// median: every Compute op takes its profile entry's median; sampled: a seeded draw from the
// entry's measured samples; steps: every rank's times from one measured step per iteration
// (sim/workload/compute_sampler.hpp); machine: sampled around one draw of the machine's state per
// run (sim/workload/machine_speed.hpp).
enum class ComputeVariance { median, sampled, steps, machine };
// The names a scenario (simulation.compute_variance) and `compare --set` accept, in enum order.
inline const std::vector<std::string>& compute_variance_names() {
  static const std::vector<std::string> names{"median", "sampled", "steps", "machine"};
  return names;
}
// The variance called `name`, if it is one of compute_variance_names().
inline std::optional<ComputeVariance> compute_variance_named(const std::string& name) {
  const auto& names = compute_variance_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<ComputeVariance>(i);
  return std::nullopt;
}
enum class PlacementKind { identity, random, file, scheduler };
enum class DelayBackend { auto_detect, netem, nfqueue };
enum class Optimizer { sgd, adam, adamw };
// The name a scenario (training.optimizer), a worker job and a profile's measured_at use.
inline const char* to_string(Optimizer o) {
  switch (o) {
    case Optimizer::sgd:
      return "sgd";
    case Optimizer::adam:
      return "adam";
    case Optimizer::adamw:
      return "adamw";
  }
  return "?";
}

// A strategy parameter after validation against the strategy catalog.
using ParamValue = std::variant<std::int64_t, double, std::string, bool>;

struct StrategySpec {
  std::string name;
  std::map<std::string, ParamValue> params;  // every declared parameter, defaults filled in
  std::int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;  // accepts integers too
  const std::string& text(const std::string& key) const;
  bool flag(const std::string& key) const;
};

struct TrainingSpec {
  double global_batch = 0;   // sequences per iteration, all replicas together
  double micro_batch = 0;    // sequences per micro-batch (0: derived from micro_batches)
  int micro_batches = 0;     // micro-batches per replica per iteration (0: derived)
  int steps = 10;
  Optimizer optimizer = Optimizer::adam;
  double learning_rate = 1e-4;
};

struct PlacementSpec {
  PlacementKind kind = PlacementKind::identity;
  std::uint64_t seed = 1;
  std::string file;  // absolute path (resolved against the scenario's folder)
};

struct SchedulerSpec {
  std::string name = "gcma";
  int population = 100;
  int trials = 4900;
  // Sizes the cost model uses; 0 = derive from model and batch.
  double gradient_bytes = 0;
  double activation_bytes = 0;
};

// Which SimGrid platform carries the network (sim/engine/platform.hpp): auto picks pairs up to
// 256 devices and regions above; pairs gives every device pair its own link (per-destination
// shaping, as the emulator does); regions gives every device one NIC that all its flows share.
enum class PlatformChoice { automatic, pairs, regions };

struct SimulationSpec {
  NetworkModel network_model = NetworkModel::flow;
  PlatformChoice platform = PlatformChoice::automatic;
  int iterations = 1;
  std::string compute_profile;  // measured per-op profile file (absolute path), empty = device model
  // > 0: all ranks compute on one host with this many cores (the emulator's machine); the
  // profile's CPU times are the work, shared by the ranks computing at once. 0: every rank has
  // its own device (docs/simulator-models.md, "host cores").
  int host_cores = 0;
  // Of those cores, how many the emulator's own work kept busy on average (Gloo's threads, the
  // delayer, the kernel's shaping: compute_profile.json "host"); compute gets the rest.
  double host_background_cores = 0;
  ComputeVariance compute_variance = ComputeVariance::median;  // needs compute_profile unless median
  // Seed of the compute draws (compute_variance sampled or steps); 0: the scenario's seed. Kept
  // apart so `compare --seeds` can vary the draws alone: the scenario's seed also seeds what
  // the run is (a scheduled placement), which must stay that of the measured run.
  std::uint64_t variance_seed = 0;
  int aggregate_collectives_above = 64;  // ranks; above this ring collectives use the O(N) form
  // ranks; above this an aggregated all-reduce ring is evaluated in O(N x G), not O(N^2)
  int ring_closed_form_above = 8192;
  // Simulate one rank of each set of twins (ranks whose runs are copies: sim/engine/twin_ranks.hpp).
  bool twin_ranks = true;
  // Effects of the real stack the emulator runs on (docs/simulator-models.md); `geotrain compare` turns
  // them on. rendezvous: a Gloo send starts only once the receiver's ready notice arrived (one
  // one-way delay after the receive was posted). payload_efficiency: the share of the shaped
  // wire rate that carries payload (TCP over Ethernet: 1448/1514).
  // buffered_sends: a send no larger than the TCP window completes once its bytes are in the
  // kernel's socket buffer (right after the rendezvous), not when they arrive; the transfer
  // itself is unchanged. Measured: a 450 kB Gloo send returns in 0.5 ms on an 11 ms link.
  bool rendezvous = false;
  bool buffered_sends = false;
  double payload_efficiency = 1;
};

struct EmulationSpec {
  int workers = 0;  // 0 = one per device
  double bandwidth_scale = 1;
  double delay_scale = 1;
  DelayBackend delay_backend = DelayBackend::auto_detect;
  int torch_threads = 1;
  // p2p: the Program's algorithm from send/recv over Gloo; gloo: Gloo's own collectives; nccl:
  // the Program's algorithm from send/recv over NCCL (needs device cuda).
  std::string collectives = "p2p";
  // Where each worker trains: cpu, or cuda (one GPU per worker process; ranks may share one).
  std::string device = "cpu";
  // The rank namespaces' default TCP congestion control. reno (default): loss-free, long-lived
  // connections behave like Linux's default cubic (cubic itself is not allowed outside the host
  // namespace here); bbr: this host's default, whose bandwidth estimate on bursty app-limited
  // collectives stays far below the link (measured 1.2 Mbit/s on a 25 Mbit/s link) and paces
  // every chunk at that rate.
  std::string congestion_control = "reno";
};

struct StragglerSpec {
  double probability = 0;  // chance of a sleep before each forward/backward op (SD-Pipe's hetero)
  double sleep_s = 0;
  std::uint64_t seed = 1;
};

// `churn:` DiLoCo workers (Program ranks) that leave and rejoin: worker `worker` is away in outer
// rounds [leave, join) (join -1: for good). churn_schedule.hpp says who is present when.
struct Absence {
  int worker = 0;
  int leave = 0;
  int join = -1;
  int line = 0;  // of the entry, for cross-field errors
};

struct ChurnSpec {
  std::vector<Absence> absences;
  int line = 0;  // of the `churn` key
};

struct Scenario {
  std::string name;  // file stem unless the file sets `name:`
  std::string path;  // the file it came from ("" when built in code)
  std::string description;
  std::uint64_t seed = 1;

  std::map<std::string, DeviceProfile> profiles;
  std::vector<Device> devices;

  Topology network = Topology::regional({"all"}, {0}, {{0, 1}}, {{0, 0}});
  std::string network_source;  // "DT-FM case 5", "regions", "matrix"
  // network.measured_fill: nearest: each pair the table lacked, "A -> B from C -> D (file:line:
  // figures)", for `geotrain check`.
  std::vector<std::string> filled_pairs;
  double tcp_buffer_bytes = 64.0 * 1024 * 1024;  // socket buffer: simulator window, emulator sysctls
  // network.bandwidth_changes in file order (resolved by sim/topology/bandwidth_schedule.hpp).
  std::vector<BandwidthChangeSpec> bandwidth_changes;

  ModelSpec model;
  TrainingSpec training;
  StrategySpec strategy;
  PlacementSpec placement;
  SchedulerSpec scheduler;
  SimulationSpec simulation;
  EmulationSpec emulation;
  StragglerSpec stragglers;
  ChurnSpec churn;

  // The network every executor uses: the configured one with the emulation scales applied.
  Topology effective_network() const {
    return network.scaled(emulation.bandwidth_scale, emulation.delay_scale);
  }
  const DeviceProfile& profile_of(int device) const;
};

}  // namespace geotrain
