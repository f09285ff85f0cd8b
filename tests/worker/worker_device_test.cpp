// geotrain-worker's device and backend selection on a machine without a GPU (the CPU-only
// LibTorch of this build): what it says it can run, and the refusals of CUDA and NCCL, each with
// exit 2 and one line naming why, before it joins any cluster.
#include <catch2/catch.hpp>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "emu/worker/worker_job.hpp"
#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace worker_device_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

const std::string kWorker = GEOTRAIN_WORKER_BINARY;

// A valid job, so what the worker refuses is the device or backend, not the file.
std::string job_file() {
  const std::string dir = process_temp_path("worker_device_test");
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/job.json";
  write_worker_job(ddp_job(tiny_model(), DdpOptions{}), path);
  return path;
}

ShellRun worker(const std::string& flags) {
  return sh(kWorker + " --program " + job_file() + " --rank 0 --steps 1 --timeout 5 " + flags + " 2>&1");
}

}  // namespace

TEST_CASE("worker --capabilities says what this build can run, as one JSON line", "[worker][cuda]") {
  const auto run = sh(kWorker + " --capabilities");
  REQUIRE(run.status == 0);
  const auto j = nlohmann::json::parse(run.out);
  CHECK(j.at("format") == "geotrain-worker-capabilities");
  CHECK(j.at("torch").get<std::string>().size() >= 4);
  CHECK(j.at("gloo") == true);
  // This tree's LibTorch (Debian's 1.13) has no CUDA: neither CUDA nor NCCL, and no GPUs listed.
  CHECK(j.at("cuda") == false);
  CHECK(j.at("nccl") == false);
  CHECK(j.at("cuda_devices") == 0);
  CHECK(j.at("gpus").empty());
}

TEST_CASE("worker: --device cuda with a LibTorch without CUDA is refused with exit 2, naming why",
          "[worker][cuda]") {
  const auto run = worker("--device cuda");
  CHECK(run.status == 2);
  CHECK(run.out.find("geotrain-worker: error: --device cuda: this geotrain-worker was built with LibTorch ") == 0);
  CHECK(run.out.find("without CUDA") != std::string::npos);
}

TEST_CASE("worker: --backend nccl on the CPU is refused with exit 2", "[worker][nccl]") {
  const auto run = worker("--backend nccl");
  CHECK(run.status == 2);
  CHECK(run.out == "geotrain-worker: error: --backend nccl: NCCL moves CUDA tensors (expected --device cuda, or "
                   "--backend gloo)\n");
  const auto on_gpu = worker("--backend nccl --device cuda");
  CHECK(on_gpu.status == 2);
  CHECK(on_gpu.out.find("--device cuda: ") != std::string::npos);  // the device is what is missing
}

TEST_CASE("worker: unknown device or backend names are flag errors", "[worker][cuda]") {
  CHECK(worker("--device tpu").status != 0);
  CHECK(worker("--backend mpi").status != 0);
  const auto no_program = sh(kWorker + " --rank 0 2>&1");
  CHECK(no_program.status == 2);
  CHECK(no_program.out == "geotrain-worker: error: --program and --rank are required (or --program and --profile, "
                          "or --capabilities)\n");
}

}  // namespace worker_device_test
