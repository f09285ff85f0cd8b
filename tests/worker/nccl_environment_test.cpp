// emu/worker/nccl_environment.hpp: NCCL's environment per rank (emulator: ranks sharing a GPU;
// real/: a host of its own) and the worker flags a collectives choice stands for.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "emu/worker/nccl_environment.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace nccl_environment_test {

using geotrain::environment_strings;
using geotrain::EnvironmentList;
using geotrain::nccl_environment;
using geotrain::worker_transport;

TEST_CASE("NCCL on a host of its own: its interface and no InfiniBand, nothing else", "[worker][nccl]") {
  CHECK(nccl_environment("ens5", 3, false) ==
        EnvironmentList{{"NCCL_SOCKET_IFNAME", "ens5"}, {"NCCL_IB_DISABLE", "1"}});
}

TEST_CASE("NCCL for emulated ranks sharing a GPU: sockets through eth0 and a host id per rank", "[worker][nccl]") {
  CHECK(nccl_environment("eth0", 2, true) == EnvironmentList{{"NCCL_SOCKET_IFNAME", "eth0"},
                                                             {"NCCL_IB_DISABLE", "1"},
                                                             {"NCCL_P2P_DISABLE", "1"},
                                                             {"NCCL_SHM_DISABLE", "1"},
                                                             {"NCCL_NVLS_ENABLE", "0"},
                                                             {"NCCL_HOSTID", "geotrain-rank-2"},
                                                             {"NCCL_MULTI_RANK_GPU_ENABLE", "1"}});
  // Every rank a host of its own: no two ranks share a host id ("Duplicate GPU detected").
  std::set<std::string> ids;
  for (int r = 0; r < 64; ++r)
    for (const auto& [name, value] : nccl_environment("lo", r, true))
      if (name == "NCCL_HOSTID") ids.insert(value);
  CHECK(ids.size() == 64);
  CHECK(environment_strings(nccl_environment("lo", 0, false)) ==
        std::vector<std::string>{"NCCL_SOCKET_IFNAME=lo", "NCCL_IB_DISABLE=1"});
}

TEST_CASE("collectives p2p, gloo and nccl as the worker's --backend and --collectives", "[worker][nccl]") {
  CHECK(worker_transport("p2p").backend == "gloo");
  CHECK(worker_transport("p2p").collectives == "p2p");
  CHECK(worker_transport("gloo").backend == "gloo");
  CHECK(worker_transport("gloo").collectives == "gloo");
  CHECK(worker_transport("nccl").backend == "nccl");
  CHECK(worker_transport("nccl").collectives == "p2p");
}

}  // namespace nccl_environment_test
