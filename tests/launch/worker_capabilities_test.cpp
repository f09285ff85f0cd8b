// emu/launch/worker_capabilities.hpp: the worker's `--capabilities` answer parsed and judged, and
// `geotrain emulate` asking it before anything is made: fake workers (shell scripts printing JSON,
// given with --worker) that cannot run device cuda or collectives nccl, or answer garbage, make
// the run exit 2 with one line and no run directory. Also the device / collectives flags that
// contradict each other. No root: the refusals come before the network (with --unshaped none is
// made at all); one case checks the namespaced path too, as root.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "emu/launch/worker_capabilities.hpp"
#include "sim/common/error.hpp"
#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace worker_capabilities_test {

using namespace geotrain;
using namespace geotrain::emu;

namespace {

const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenario = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml";

constexpr const char* kCpuOnly =
    R"({"format":"geotrain-worker-capabilities","version":1,"torch":"1.13.0","cuda":false,"nccl":false,"gloo":true,"cuda_devices":0,"gpus":[]})";
constexpr const char* kNoGpu =
    R"({"format":"geotrain-worker-capabilities","version":1,"torch":"2.4.1","cuda":true,"nccl":true,"gloo":true,"cuda_devices":0,"gpus":[]})";
constexpr const char* kOneGpu =
    R"({"format":"geotrain-worker-capabilities","version":1,"torch":"2.4.1","cuda":true,"nccl":true,"gloo":false,"cuda_devices":1,"gpus":[{"index":0,"name":"NVIDIA H100 80GB HBM3","total_bytes":85000000000}]})";

// A fake geotrain-worker: a shell script that prints `answer` and exits with `status` when asked
// --capabilities, and fails loudly if it is ever started as a worker.
std::string fake_worker(const std::string& name, const std::string& answer, int status = 0) {
  const std::string dir = test::process_temp_path("geotrain-fake-workers");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/" + name;
  std::ofstream(path) << "#!/bin/sh\n"
                      << "if [ \"$1\" = --capabilities ]; then\n"
                      << "cat <<'EOF'\n" << answer << "\nEOF\n"
                      << "exit " << status << "\nfi\n"
                      << "echo 'started as a worker' >&2; exit 9\n";
  ::chmod(path.c_str(), 0755);
  return path;
}

// `geotrain emulate` with `args`; the run directory must not appear.
test::ShellRun refused_emulate(const std::string& args, const std::string& tag) {
  const std::string out = test::process_temp_path("geotrain-capabilities-run-" + tag);
  const auto r = test::sh(kBin + " emulate " + kScenario + " --steps 2 --out " + out + " " + args + " 2>&1");
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(out));
  return r;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("worker capabilities: the JSON line is parsed, other lines are skipped", "[emu][launch][capabilities]") {
  const auto c = parse_worker_capabilities(std::string("loading libtorch\n") + kOneGpu + "\n", "/w");
  CHECK(c.torch == "2.4.1");
  CHECK(c.cuda);
  CHECK(c.nccl);
  CHECK_FALSE(c.gloo);
  CHECK(c.cuda_devices == 1);
  REQUIRE(c.gpus.size() == 1);
  CHECK(c.gpus[0].name == "NVIDIA H100 80GB HBM3");
  CHECK(c.gpus[0].total_bytes == 85000000000ULL);
  CHECK_THROWS_AS(parse_worker_capabilities("", "/w"), InputError);
  CHECK_THROWS_AS(parse_worker_capabilities("{\"format\":\"other\"}", "/w"), InputError);
  CHECK_THROWS_AS(parse_worker_capabilities(
                      R"({"format":"geotrain-worker-capabilities","version":2,"torch":"x","cuda":true})", "/w"),
                  InputError);
  CHECK_THROWS_AS(parse_worker_capabilities(R"({"format":"geotrain-worker-capabilities","version":1,"cuda":true})", "/w"),
                  InputError);
}

TEST_CASE("worker capabilities: what each run needs, and the one-line refusals", "[emu][launch][capabilities]") {
  CHECK_FALSE(needs_capability_probe({"cpu", "p2p"}));
  CHECK_FALSE(needs_capability_probe({"cpu", "gloo"}));
  CHECK(needs_capability_probe({"cuda", "p2p"}));
  CHECK(needs_capability_probe({"cuda", "nccl"}));
  const auto cpu_only = parse_worker_capabilities(kCpuOnly, "/w");
  const auto no_gpu = parse_worker_capabilities(kNoGpu, "/w");
  const auto one_gpu = parse_worker_capabilities(kOneGpu, "/w");
  auto message = [](const WorkerCapabilities& c, const WorkerNeeds& n) -> std::string {
    try {
      require_worker_capabilities(c, "/w", n);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(message(cpu_only, {"cuda", "p2p"}) ==
        "emulation.device: cuda: worker /w was built with LibTorch 1.13.0 without CUDA (build it against a CUDA "
        "LibTorch: docs/gpu.md)");
  CHECK(message(cpu_only, {"cuda", "nccl", "--device", "--collectives"}).rfind("--device cuda: worker /w", 0) == 0);
  CHECK(has(message(no_gpu, {"cuda", "nccl"}), "sees no GPU (cuda_devices = 0;"));
  CHECK(message(one_gpu, {"cuda", "nccl"}).empty());
  // Built with NCCL only: the Gloo backend (p2p, gloo) is not there.
  CHECK(message(one_gpu, {"cuda", "p2p"}).rfind("emulation.collectives: p2p: worker /w was built without Gloo", 0) == 0);
  auto no_nccl = one_gpu;
  no_nccl.nccl = false;
  CHECK(message(no_nccl, {"cuda", "nccl", "emulation.device", "--collectives"})
            .rfind("--collectives nccl: worker /w was built with LibTorch 2.4.1 without NCCL", 0) == 0);
}

TEST_CASE("emulate: a worker that cannot run cuda or nccl, or answers garbage, is refused before anything is made",
          "[emu][launch][capabilities][errors]") {
  {
    const auto r = refused_emulate("--unshaped --device cuda --worker " + fake_worker("cpu-only", kCpuOnly), "cpu");
    CHECK(has(r.out, "--device cuda: worker "));
    CHECK(has(r.out, "was built with LibTorch 1.13.0 without CUDA (build it against a CUDA LibTorch: docs/gpu.md)"));
  }
  {
    const auto r = refused_emulate("--unshaped --set emulation.device=cuda --set emulation.collectives=nccl --worker " +
                                       fake_worker("no-gpu", kNoGpu),
                                   "nogpu");
    CHECK(has(r.out, "emulation.device: cuda: worker "));
    CHECK(has(r.out, "sees no GPU (cuda_devices = 0;"));
  }
  {
    const auto r = refused_emulate("--unshaped --device cuda --worker " + fake_worker("garbage", "hello, world"), "garbage");
    CHECK(has(r.out, "--capabilities printed no capabilities: 'hello, world' (expected one JSON line of format "
                     "geotrain-worker-capabilities"));
  }
  {
    const auto r = refused_emulate("--unshaped --device cuda --worker " + fake_worker("old", "unknown flag", 109), "old");
    CHECK(has(r.out, "--capabilities exited with status 109"));
  }
}

TEST_CASE("emulate: collectives nccl on a CPU device is refused whichever side asked", "[emu][launch][capabilities][errors]") {
  const std::string worker = " --worker " + fake_worker("never-asked", kOneGpu);
  CHECK(has(refused_emulate("--unshaped --collectives nccl" + worker, "flag").out,
            "--collectives nccl: needs device cuda (the run's device is cpu, from emulation.device;"));
  CHECK(has(refused_emulate("--unshaped --device cpu --set emulation.device=cuda --set emulation.collectives=nccl" + worker,
                            "device")
                .out,
            "--device cpu: " + kScenario + "'s emulation.collectives is nccl, which needs device cuda"));
  CHECK(has(refused_emulate("--unshaped --set emulation.collectives=nccl" + worker, "scenario").out,
            "emulation.collectives = 'nccl': needs emulation.device: cuda"));
  CHECK(has(refused_emulate("--unshaped --cluster somewhere" + worker, "cluster").out, "--unshaped: given with --cluster"));
}

TEST_CASE("emulate: the capability refusal comes before the cluster too", "[emu][launch][capabilities][root]") {
  if (!test::have_root("emulate tests")) return;
  const auto before = test::sh("ip netns list | grep -c '^gt-ddp_ring_2_' || true").out;
  const auto r = refused_emulate("--device cuda --worker " + fake_worker("cpu-only-root", kCpuOnly), "root");
  CHECK(has(r.out, "without CUDA"));
  CHECK(test::sh("ip netns list | grep -c '^gt-ddp_ring_2_' || true").out == before);
}

}  // namespace worker_capabilities_test
