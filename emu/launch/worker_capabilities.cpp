#include "emu/launch/worker_capabilities.hpp"

#include <fmt/format.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/common/error.hpp"
#include "sim/process/run.hpp"

namespace geotrain::emu {

namespace {

constexpr const char* kCapabilitiesFormat = "geotrain-worker-capabilities";
constexpr const char* kExpectedAnswer =
    "expected one JSON line of format geotrain-worker-capabilities, version 1: a geotrain-worker "
    "built from this geotrain's source";

// The last non-blank line of a program's output, for a message ("" if none).
std::string answer_last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  if (last.size() > 200) last = last.substr(0, 200) + "...";
  return last;
}

// "emulation.device: cuda" for a scenario key, "--device cuda" for a flag.
std::string asked(const std::string& key, const std::string& value) {
  return key.rfind("--", 0) == 0 ? fmt::format("{} {}", key, value) : fmt::format("{}: {}", key, value);
}

WorkerCapabilities capabilities_from_json(const nlohmann::json& j) {
  WorkerCapabilities c;
  c.torch = j.at("torch").get<std::string>();
  c.cuda = j.at("cuda").get<bool>();
  c.nccl = j.at("nccl").get<bool>();
  c.gloo = j.at("gloo").get<bool>();
  c.cuda_devices = j.at("cuda_devices").get<int>();
  for (const auto& g : j.value("gpus", nlohmann::json::array()))
    c.gpus.push_back({g.at("index").get<int>(), g.value("name", ""), g.value("total_bytes", std::uint64_t{0})});
  return c;
}

}  // namespace

WorkerCapabilities parse_worker_capabilities(const std::string& text, const std::string& worker) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || j.value("format", "") != kCapabilitiesFormat) continue;
    if (j.value("version", 0) != 1)
      throw InputError(fmt::format("worker {} --capabilities: version {} ({})", worker, j.value("version", 0),
                                   kExpectedAnswer));
    try {
      return capabilities_from_json(j);
    } catch (const nlohmann::json::exception&) {
      throw InputError(fmt::format("worker {} --capabilities: a field is missing or of the wrong type in '{}' "
                                   "({} with torch, cuda, nccl, gloo, cuda_devices)",
                                   worker, answer_last_line(line), kExpectedAnswer));
    }
  }
  const std::string said = answer_last_line(text);
  throw InputError(fmt::format("worker {} --capabilities printed {} ({})", worker,
                               said.empty() ? std::string("nothing") : fmt::format("no capabilities: '{}'", said),
                               kExpectedAnswer));
}

WorkerCapabilities probe_worker_capabilities(const std::string& worker, double timeout_s) {
  process::ChildSpec spec;
  spec.argv = {worker, "--capabilities"};
  process::RunOptions ro;
  ro.timeout_s = timeout_s;
  process::RunResult r;
  try {
    r = process::run(spec, ro);
  } catch (const TimeoutError&) {
    throw InputError(fmt::format("worker {} --capabilities did not answer within {:g} s ({})", worker, timeout_s,
                                 kExpectedAnswer));
  } catch (const SystemError& e) {
    throw InputError(fmt::format("worker {} --capabilities could not be started: {}", worker, e.what()));
  }
  if (r.status != 0) {
    const std::string err = answer_last_line(r.err);
    throw InputError(fmt::format("worker {} --capabilities exited with status {}{} ({})", worker, r.status,
                                 err.empty() ? "" : fmt::format(" (stderr: {})", err), kExpectedAnswer));
  }
  return parse_worker_capabilities(r.out, worker);
}

bool needs_capability_probe(const WorkerNeeds& n) { return n.device == "cuda" || n.collectives == "nccl"; }

void require_worker_capabilities(const WorkerCapabilities& c, const std::string& worker, const WorkerNeeds& n) {
  const std::string torch = c.torch.empty() ? "LibTorch" : "LibTorch " + c.torch;
  if (n.device == "cuda" && !c.cuda)
    throw InputError(fmt::format("{}: worker {} was built with {} without CUDA (build it against a CUDA "
                                 "LibTorch: docs/gpu.md)", asked(n.device_key, n.device), worker, torch));
  if (n.device == "cuda" && c.cuda_devices <= 0)
    throw InputError(fmt::format("{}: worker {} sees no GPU (cuda_devices = {}; expected at least one: check "
                                 "nvidia-smi and CUDA_VISIBLE_DEVICES, or run with device cpu)",
                                 asked(n.device_key, n.device), worker, c.cuda_devices));
  if (n.collectives == "nccl" && !c.nccl)
    throw InputError(fmt::format("{}: worker {} was built with {} without NCCL (build it against a CUDA "
                                 "LibTorch with NCCL: docs/gpu.md)", asked(n.collectives_key, n.collectives),
                                 worker, torch));
  if (n.collectives != "nccl" && !c.gloo)
    throw InputError(fmt::format("{}: worker {} was built without Gloo, with NCCL only (expected collectives "
                                 "nccl, or a worker built with LibTorch's Gloo headers: docs/gpu.md)",
                                 asked(n.collectives_key, n.collectives), worker));
}

}  // namespace geotrain::emu
