#include "sim/workload/compute_model.hpp"

// Measured compute profile (simulation.compute_profile), written by `geotrain emulate`:
//
//   {"format": "geotrain-compute-profile", "version": 1,
//    "model": "gpt-tiny", "device_profile": "cpu",          // informational
//    "ops": [{"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 2,
//             "sequences": 4, "flops": 1.2e9,
//             "median_s": 0.0123, "samples_s": [0.0121, 0.0123, 0.0130]}, ...]}
//
// kind: forward | backward | optimizer | other; layer range [layer_begin, layer_end) of the
// scenario's model; sequences per op (0 or absent for the optimizer); flops optional (derived from
// the scenario's model for forward/backward/optimizer when absent, required for other); median_s
// is what the simulator uses, samples_s (optional) keeps the raw measurements. Times are for a
// device with slowdown 1: the simulator multiplies them by the device's slowdown.
//
// Lookup for an op: (1) an entry of the same kind, layer range and sequences -> its median;
// (2) else the entry of the same kind nearest in flop (|log ratio|), scaled by the flop ratio;
// (3) else the device model.
//
// Device model: forward/backward take flops / (peak for the model dtype x efficiency).
// The optimizer and `other` ops (gradient averaging) are element-wise over fp32 buffers, hence
// memory-bound: they take
// max(memory_bytes / memory bandwidth, flops / (fp32 peak x efficiency)); the memory bandwidth
// is a per-profile figure (kMemoryBandwidth below; unknown profiles: 0.06 byte per fp32 flop,
// the V100's ratio). Every time is multiplied by the device's slowdown.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "sim/common/error.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

using nlohmann::json;

// Vendor HBM/DRAM figures, bytes/s (V100 SXM2, A100 80GB SXM, H100 SXM, a desktop CPU).
const std::map<std::string, double> kMemoryBandwidth{
    {"V100", 900e9}, {"A100", 2039e9}, {"H100", 3350e9}, {"cpu", 20e9}};
constexpr double kBytesPerFp32Flop = 0.06;

struct Entry {
  ComputeKind kind = ComputeKind::forward;
  int layer_begin = 0, layer_end = 0;
  double sequences = 0, flops = 0, median_s = 0;
};

bool same(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

std::optional<ComputeKind> kind_named(const std::string& s) {
  for (auto k : {ComputeKind::forward, ComputeKind::backward, ComputeKind::optimizer, ComputeKind::other})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

double derived_flops(const Scenario& sc, const Entry& e) {
  switch (e.kind) {
    case ComputeKind::forward:
      return forward_op(sc.model, 0, 0, e.layer_begin, e.layer_end, e.sequences).flops;
    case ComputeKind::backward:
      return backward_op(sc.model, 0, 0, e.layer_begin, e.layer_end, e.sequences).flops;
    case ComputeKind::optimizer:
      return optimizer_op(sc.model, sc.training.optimizer, 0, e.layer_begin, e.layer_end).flops;
    case ComputeKind::other:
      return 0;
  }
  return 0;
}

// Reads one entry; appends a problem per bad field (file: ops[i].key = value: expectation).
std::optional<Entry> read_entry(const json& j, std::size_t i, const Scenario& sc,
                                const std::string& file, std::vector<std::string>& problems) {
  const auto where = [&](const char* key) { return fmt::format("{}: ops[{}].{}", file, i, key); };
  const std::size_t before = problems.size();
  Entry e;
  if (!j.is_object()) {
    problems.push_back(fmt::format("{}: ops[{}]: expected an object", file, i));
    return std::nullopt;
  }
  const auto kind = j.contains("kind") && j["kind"].is_string() ? kind_named(j["kind"].get<std::string>()) : std::nullopt;
  const bool known_kind = kind.has_value();
  if (!known_kind)
    problems.push_back(fmt::format("{} = {}: unknown kind (expected forward, backward, optimizer, other)",
                                   where("kind"), j.value("kind", json()).dump()));
  else
    e.kind = *kind;
  const auto number = [&](const char* key, bool required, double min, double max, double& out) {
    if (!j.contains(key)) {
      if (required) problems.push_back(fmt::format("{}: missing (expected a number)", where(key)));
      return;
    }
    if (!j[key].is_number() || j[key].get<double>() < min || j[key].get<double>() > max) {
      problems.push_back(fmt::format("{} = {}: expected a number from {} to {}", where(key), j[key].dump(), min, max));
      return;
    }
    out = j[key].get<double>();
  };
  double begin = 0, end = 0;
  const double layers = sc.model.layers;
  number("layer_begin", true, 0, layers - 1, begin);
  number("layer_end", true, 1, layers, end);
  number("sequences", false, 0, 1e12, e.sequences);
  number("median_s", true, 0, 1e9, e.median_s);
  number("flops", !known_kind || e.kind == ComputeKind::other, 0, 1e30, e.flops);
  e.layer_begin = static_cast<int>(begin), e.layer_end = static_cast<int>(end);
  if (problems.size() == before && e.layer_begin >= e.layer_end)
    problems.push_back(fmt::format("{}: layer range [{}, {}) is empty (expected layer_begin < layer_end)",
                                   where("layer_end"), e.layer_begin, e.layer_end));
  if (problems.size() != before) return std::nullopt;
  if (!j.contains("flops")) e.flops = derived_flops(sc, e);
  return e;
}

std::vector<Entry> read_profile(const std::string& file, const Scenario& sc) {
  std::ifstream in(file);
  if (!in) throw InputError(fmt::format("{}: cannot open compute profile", file));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: malformed JSON: {}", file, e.what()));
  }
  if (!doc.is_object() || doc.value("format", "") != "geotrain-compute-profile" ||
      !doc.contains("ops") || !doc["ops"].is_array())
    throw InputError(fmt::format("{}: expected {{\"format\": \"geotrain-compute-profile\", \"ops\": [...]}}", file));
  std::vector<std::string> problems;
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < doc["ops"].size(); ++i)
    if (auto e = read_entry(doc["ops"][i], i, sc, file, problems)) entries.push_back(*e);
  if (!problems.empty()) throw InputError(problems);
  return entries;
}

}  // namespace

struct ComputeModel::Impl {
  Scenario scenario;  // a copy: the model must not dangle when the caller's scenario goes
  std::vector<Entry> entries;

  std::optional<double> measured(const ComputeOp& op) const {
    const Entry* nearest = nullptr;
    double best = std::numeric_limits<double>::infinity();
    for (const auto& e : entries) {
      if (e.kind != op.kind) continue;
      if (e.layer_begin == op.layer_begin && e.layer_end == op.layer_end && same(e.sequences, op.sequences))
        return e.median_s;
      if (e.flops <= 0 || op.flops <= 0) continue;
      const double distance = std::abs(std::log(e.flops / op.flops));
      if (distance < best) best = distance, nearest = &e;
    }
    if (!nearest) return std::nullopt;
    return nearest->median_s * op.flops / nearest->flops;
  }

  double modelled(const ComputeOp& op, const DeviceProfile& p) const {
    const double rate = p.peak_flops(scenario.model.dtype) * p.efficiency;
    if (op.kind == ComputeKind::forward || op.kind == ComputeKind::backward) return op.flops / rate;
    auto it = kMemoryBandwidth.find(p.name);
    const double bandwidth = it != kMemoryBandwidth.end() ? it->second : p.peak_fp32_flops * kBytesPerFp32Flop;
    return std::max(op.memory_bytes / bandwidth, op.flops / (p.peak_fp32_flops * p.efficiency));
  }
};

ComputeModel::ComputeModel(const Scenario& scenario) : impl_(std::make_unique<Impl>()) {
  impl_->scenario = scenario;
  if (!scenario.simulation.compute_profile.empty())
    impl_->entries = read_profile(scenario.simulation.compute_profile, scenario);
}

ComputeModel::~ComputeModel() = default;
ComputeModel::ComputeModel(ComputeModel&&) noexcept = default;
ComputeModel& ComputeModel::operator=(ComputeModel&&) noexcept = default;

double ComputeModel::seconds(const ComputeOp& op, int device) const {
  const Scenario& sc = impl_->scenario;
  const double slowdown = sc.devices.at(static_cast<std::size_t>(device)).slowdown;
  if (auto t = impl_->measured(op)) return *t * slowdown;
  return impl_->modelled(op, sc.profile_of(device)) * slowdown;
}

}  // namespace geotrain
