// Engine behaviour beyond closed forms: the TCP model, determinism, refusals and deadlocks
// (dynamic ops: dynamic_ops_test.cpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace engine_behaviour_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

Program one_transfer(double bytes) {
  Program p = empty_program(2);
  p.ranks[0].push_back(send(1, bytes, 0));
  p.ranks[1].push_back(recv(0, bytes, 0));
  return p;
}

}  // namespace

TEST_CASE("tcp model: a window-bound flow on a 150 ms link is several times slower", "[sim][tcp]") {
  Scenario s = uniform_scenario(2, 0.150, 1.25e8);
  s.tcp_buffer_bytes = 4.0 * 1024 * 1024;
  const double bytes = 200e6;
  engine::SimulationOptions tcp;
  tcp.network_model = NetworkModel::tcp;
  const auto flow_run = simulate_in_child(s, one_transfer(bytes), {}, tflop_seconds());
  const auto tcp_run = simulate_in_child(s, one_transfer(bytes), tcp, tflop_seconds());
  REQUIRE(flow_run.ok);
  REQUIRE(tcp_run.ok);
  CHECK(flow_run.summary["network_model"] == "flow");
  CHECK(tcp_run.summary["network_model"] == "tcp");
  CHECK(tcp_run.makespan() > 3 * flow_run.makespan());
  // Window = half the buffer (2 MiB): rate 2 MiB / 0.3 s, whatever the link's 1 Gbit/s.
  const double window_rate = 2.0 * 1024 * 1024 / (2 * 0.150);
  CHECK(tcp_run.makespan() == Approx(0.150 + bytes / window_rate).epsilon(1e-2));
  // The same closed form is what the aggregated ring uses under tcp.
  engine::TransferModel m{NetworkModel::tcp, s.tcp_buffer_bytes};
  CHECK(tcp_run.makespan() == Approx(m.seconds(0.150, 1.25e8, bytes)).epsilon(1e-2));
}

TEST_CASE("tcp model: a flow under its window pays no slow-start latency factor", "[sim][tcp]") {
  // Long-lived connections (tcp_slow_start_after_idle = 0): latency + bytes / bandwidth, as flow.
  Scenario s = uniform_scenario(2, 0.150, 2.5e6);  // 20 Mbit/s: BDP 0.75 MB << 32 MiB window
  const double bytes = 220e3;
  engine::SimulationOptions tcp;
  tcp.network_model = NetworkModel::tcp;
  const auto tcp_run = simulate_in_child(s, one_transfer(bytes), tcp, tflop_seconds());
  REQUIRE(tcp_run.ok);
  CHECK(tcp_run.makespan() == Approx(0.150 + bytes / 2.5e6).epsilon(1e-3));
}

TEST_CASE("same scenario and seed give byte-identical result files", "[sim][determinism]") {
  const auto base = std::filesystem::temp_directory_path() / "geotrain-determinism";
  std::filesystem::remove_all(base);
  Program p = gpipe_program(3, 4, 0.5, 1.0, 20e6);
  p.ranks[0].push_back(collective(CollectiveKind::allreduce, 1e6));
  p.ranks[1].push_back(collective(CollectiveKind::allreduce, 1e6));
  p.ranks[2].push_back(collective(CollectiveKind::allreduce, 1e6));
  for (const char* run : {"a", "b"}) {
    std::filesystem::create_directories(base / run);
    const auto r = simulate_in_child(uniform_scenario(3, 0.01, 1e8), p, {}, tflop_seconds(), (base / run).string());
    REQUIRE(r.ok);
  }
  for (const char* file : {"summary.json", "ops.csv", "trace.json"}) {
    INFO(file);
    const auto a = slurp(base / "a" / file);
    CHECK(!a.empty());
    CHECK(a == slurp(base / "b" / file));
  }
  std::filesystem::remove_all(base);
}

TEST_CASE("a collective without a schedule is refused before the run", "[sim][errors]") {
  Program p = empty_program(3);
  for (auto& ops : p.ranks)
    ops.push_back(collective(CollectiveKind::allreduce, 1e6, CollectiveAlgorithm::halving_doubling));
  const auto r = simulate_in_child(uniform_scenario(3, 0.01, 1e8), p, {}, tflop_seconds());
  REQUIRE_FALSE(r.ok);
  CHECK(r.input_error);
  CHECK_THAT(r.error, Catch::Contains("rank 0 op 0 'collective'") && Catch::Contains("power-of-2"));
}

TEST_CASE("a receive nobody sends is reported as a deadlock", "[sim][errors]") {
  Program p = empty_program(2);
  p.ranks[1].push_back(recv(0, 1e6, 3));
  const auto r = simulate_in_child(uniform_scenario(2, 0.01, 1e8), p, {}, tflop_seconds());
  REQUIRE_FALSE(r.ok);
  CHECK_FALSE(r.input_error);
  CHECK_THAT(r.error, Catch::Contains("deadlocked") && Catch::Contains("rank 1"));
}

}  // namespace engine_behaviour_test
