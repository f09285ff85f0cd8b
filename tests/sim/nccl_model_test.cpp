// NCCL's own collectives (algorithm `library` under emulation.collectives: nccl) are modelled by
// the Program schedule closest to what NCCL runs between hosts: the prediction must be exactly
// that schedule's (engine/collective_runner.cpp, modelled_algorithm).
#include <catch2/catch.hpp>

#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace nccl_model_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

double makespan(const std::string& collectives, CollectiveKind kind, CollectiveAlgorithm algorithm) {
  Scenario s = uniform_scenario(4, 0.030, 1.25e8);
  s.emulation.collectives = collectives;
  Program p = empty_program(4);
  for (auto& ops : p.ranks) ops.push_back(collective(kind, 64e6, algorithm));
  const auto r = simulate_in_child(s, p, {}, tflop_seconds());
  REQUIRE(r.ok);
  return r.makespan();
}

}  // namespace

TEST_CASE("emulation.collectives: nccl models NCCL's own collectives by the closest Program schedule",
          "[sim][nccl]") {
  using K = CollectiveKind;
  using A = CollectiveAlgorithm;
  CHECK(makespan("nccl", K::allreduce, A::library) == makespan("p2p", K::allreduce, A::ring));
  CHECK(makespan("nccl", K::allgather, A::library) == makespan("p2p", K::allgather, A::ring));
  CHECK(makespan("nccl", K::broadcast, A::library) == makespan("p2p", K::broadcast, A::tree));
  CHECK(makespan("nccl", K::gather, A::library) == makespan("p2p", K::gather, A::direct));
  // Schedules the Program names itself run as named on NCCL too (send/recv, step by step).
  CHECK(makespan("nccl", K::allreduce, A::tree) == makespan("p2p", K::allreduce, A::tree));
  // And NCCL's ring is not Gloo's segmented two-in-flight loop, which is much slower here.
  CHECK(makespan("nccl", K::allreduce, A::library) < makespan("p2p", K::allreduce, A::library));
}

}  // namespace nccl_model_test
