// Compressed exchanges, simulated and emulated (docs/compression.md): for every compression
// kind, `geotrain simulate` and `geotrain emulate --unshaped` (the real CPU worker on loopback,
// no root, no namespaces) run the same 3-rank Program, and every collective of every rank sends
// the same bytes in both: the simulator's from sim/program/compression.hpp, the worker's counted
// from the tensors it handed to send (uncompressed: the same total; see below). 3 ranks, so the
// ring's chunks are unequal. Judges bytes and the loss, never time.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace emulate_compression_test {

namespace {

const std::string kBin = GEOTRAIN_BINARY;

std::string scenario_text(const std::string& strategy, const std::string& compression) {
  return "name: compression_" + compression + "\n"
         "seed: 3\n"
         "devices: {count: 3, profile: cpu, regions: [lab]}\n"
         "network: {regions: {intra: {delay: 1ms, bandwidth: 1Gbps}}}\n"
         "model: {preset: gpt-tiny}\n"
         "training: {global_batch: 6, micro_batch: 2, steps: 2, optimizer: adamw, learning_rate: 0.003}\n"
         "strategy: {name: " + strategy + (strategy == "diloco" ? ", inner_steps: 2" : "") +
         ", compression: {kind: " + compression + "}}\n"
         "emulation: {torch_threads: 1, collectives: p2p}\n";
}

// (rank, op) -> bytes_sent of the collective ops of iteration `iteration` in ops.csv.
std::map<std::pair<int, int>, double> collective_bytes(const std::string& path, int iteration) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header: rank,device,iteration,op,type,label,...,bytes_sent,peer,group
  std::map<std::pair<int, int>, double> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    if (f.size() < 12 || f[4] != "collective" || std::stoi(f[2]) != iteration) continue;
    out[{std::stoi(f[0]), std::stoi(f[3])}] = std::stod(f[11]);
  }
  return out;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

double total(const std::map<std::pair<int, int>, double>& bytes) {
  double sum = 0;
  for (const auto& [key, b] : bytes) sum += b;
  return sum;
}

// Writes `text` to DIR.yaml, simulates one iteration into DIR-sim and emulates two steps on
// loopback (the real worker, as nobody when root) into DIR-emu; all three removed at exit.
void simulate_and_emulate(const std::string& dir, const std::string& text) {
  const std::string as_user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const std::string file = dir + ".yaml";
  geotrain::test::remove_at_exit(file);
  std::ofstream(file) << text;
  const auto sim = geotrain::test::sh(kBin + " simulate " + file + " --iterations 1 --no-trace --out " + dir + "-sim 2>&1");
  INFO(sim.out);
  REQUIRE(sim.status == 0);
  geotrain::test::remove_at_exit(dir + "-sim");
  const auto emu = geotrain::test::sh(as_user + kBin + " emulate " + file + " --unshaped --steps 2 --out " + dir + "-emu 2>&1");
  INFO(emu.out);
  REQUIRE(emu.status == 0);
  geotrain::test::remove_at_exit(dir + "-emu");
}

}  // namespace

TEST_CASE("compressed exchanges: simulated bytes = emulated bytes for every kind",
          "[emu][launch][unshaped][worker][compression]") {
  std::map<std::string, double> per_iteration;
  for (const auto& [strategy, kind] : std::vector<std::pair<std::string, std::string>>{
           {"ddp-allreduce", "none"}, {"ddp-allreduce", "int8"}, {"ddp-allreduce", "fp4"},
           {"ddp-allreduce", "topk"}, {"diloco", "topk"}}) {
    INFO(strategy << " compression " << kind);
    const std::string dir = geotrain::test::process_temp_path("geotrain-compression-" + strategy + "-" + kind);
    simulate_and_emulate(dir, scenario_text(strategy, kind));
    const auto simulated = collective_bytes(dir + "-sim/ops.csv", 0);
    REQUIRE(simulated.size() == 3);  // one collective per rank
    for (int step : {0, 1}) {
      const auto emulated = collective_bytes(dir + "-emu/ops.csv", step);
      if (kind != "none") {
        CHECK(emulated == simulated);
        continue;
      }
      // Uncompressed, the simulator cuts the ring's chunks at byte boundaries and the worker at
      // element boundaries (4 B): the same total, each rank within one element per step.
      CHECK(total(emulated) == total(simulated));
      REQUIRE(emulated.size() == simulated.size());
      for (const auto& [key, bytes] : simulated) CHECK(std::fabs(emulated.at(key) - bytes) <= 4.0 * 2 * (3 - 1));
    }
    const auto summary = read_json(dir + "-emu/summary.json");
    CHECK(summary["bytes"]["match"] == true);
    for (const auto& loss : summary["loss"]) CHECK(std::isfinite(loss.get<double>()));
    // Every member decodes the same bytes, so the replicas stay identical (requantizing hops
    // included).
    const auto fingerprint = [&](int rank) {
      return read_json(dir + "-emu/ranks/" + std::to_string(rank) + "/worker.json")["weights_fnv1a"];
    };
    CHECK(fingerprint(1) == fingerprint(0));
    CHECK(fingerprint(2) == fingerprint(0));
    per_iteration[strategy + " " + kind] = total(simulated);
    std::printf("compression %s %s: simulated %.0f B, emulated %.0f B per iteration (3 ranks)\n", strategy.c_str(),
                kind.c_str(), total(simulated), total(collective_bytes(dir + "-emu/ops.csv", 0)));
  }
  // int8 ~ a quarter of fp32 plus scales, fp4 ~ an eighth plus scales, top-k (an all-gather of
  // 3 % of the elements at 8 B) 0.03 x N of it.
  CHECK(per_iteration["ddp-allreduce int8"] < 0.3 * per_iteration["ddp-allreduce none"]);
  CHECK(per_iteration["ddp-allreduce fp4"] < 0.2 * per_iteration["ddp-allreduce none"]);
  CHECK(per_iteration["ddp-allreduce topk"] < 0.1 * per_iteration["ddp-allreduce none"]);
}

// Streaming DiLoCo compresses each fragment's pseudo-gradient on its own, and its exchanges are
// nonblocking, overlapping the next inner step (tau 1): the encoder runs before the collective,
// the decoder after its Wait. Two fragments over H = 4 on 3 ranks: every fragment exchange of
// every rank sends the simulator's bytes, in both rounds.
TEST_CASE("compressed exchanges: streaming-diloco's overlapped fragments, simulated bytes = emulated bytes",
          "[emu][launch][unshaped][worker][compression][streaming]") {
  for (const std::string kind : {"int8", "fp4", "topk"}) {
    INFO("compression " << kind);
    const std::string dir = geotrain::test::process_temp_path("geotrain-compression-streaming-" + kind);
    auto text = scenario_text("streaming-diloco", kind);
    const std::string strategy_line = "strategy: {name: streaming-diloco, ";
    text.replace(text.find(strategy_line), strategy_line.size(),
                 strategy_line + "inner_steps: 4, fragments: 2, overlap_steps: 1, ");
    simulate_and_emulate(dir, text);
    const auto simulated = collective_bytes(dir + "-sim/ops.csv", 0);
    REQUIRE(simulated.size() == 6);  // two fragment exchanges per rank
    for (int step : {0, 1}) CHECK(collective_bytes(dir + "-emu/ops.csv", step) == simulated);
    const auto summary = read_json(dir + "-emu/summary.json");
    CHECK(summary["bytes"]["match"] == true);
    for (const auto& loss : summary["loss"]) CHECK(std::isfinite(loss.get<double>()));
  }
}

TEST_CASE("compressed exchanges: --collectives gloo is refused before any file", "[emu][launch][unshaped][compression]") {
  const std::string dir = geotrain::test::process_temp_path("geotrain-compression-gloo");
  const std::string file = dir + ".yaml";
  geotrain::test::remove_at_exit(file);
  geotrain::test::remove_at_exit(dir);
  std::ofstream(file) << scenario_text("ddp-allreduce", "int8");
  const auto r = geotrain::test::sh(kBin + " emulate " + file + " --unshaped --collectives gloo --out " + dir + " 2>&1");
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(r.out.find("--collectives gloo: op 'allreduce dp s0' is compressed (int8), which needs the Program's own "
                   "ring (expected --collectives p2p or nccl)") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir));
}

}  // namespace emulate_compression_test
