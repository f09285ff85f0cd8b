#include "emu/launch/worker_specs.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "emu/worker/nccl_environment.hpp"

namespace geotrain::emu {

std::vector<WorkerSpec> make_worker_specs(const Program& p, const WorkerNetwork& net, const WorkerRunFlags& f,
                                          const std::string& dir, int store_port) {
  const int device0 = p.device_of_rank.at(0);
  const WorkerTransport transport = worker_transport(f.collectives);
  std::vector<WorkerSpec> specs;
  for (int r = 0; r < p.world_size; ++r) {
    const int dev = p.device_of_rank[static_cast<std::size_t>(r)];
    const std::string rd = fmt::format("{}/ranks/{}", dir, r);
    std::filesystem::create_directories(rd);
    WorkerSpec w;
    w.argv = {f.worker, "--program", f.job, "--rank", std::to_string(r), "--store-addr", net.address(device0),
              "--store-port", std::to_string(store_port), "--bind-addr", net.address(dev), "--steps",
              std::to_string(f.steps), "--out", rd, "--threads", std::to_string(f.threads), "--seed",
              std::to_string(f.seed), "--collectives", transport.collectives, "--backend", transport.backend,
              "--device", f.device,
              // Peers wait longer than the launcher's stall limit, so the launcher names the stuck
              // rank before its peers time out on it.
              "--timeout", fmt::format("{}", 2 * f.timeout_s + 5), "--progress", rd + "/progress.bin"};
    if (f.device == "cuda" && f.ranks_per_gpu > 0)
      w.argv.insert(w.argv.end(), {"--ranks-per-gpu", std::to_string(f.ranks_per_gpu)});
    if (transport.backend == "nccl")
      w.env = environment_strings(nccl_environment(net.interface(), r, /*ranks_share_a_gpu=*/true));
    w.netns = net.netns(dev);
    w.stdout_path = rd + "/stdout.txt";
    w.stderr_path = rd + "/stderr.txt";
    w.progress_path = rd + "/progress.bin";
    specs.push_back(std::move(w));
  }
  return specs;
}

}  // namespace geotrain::emu
