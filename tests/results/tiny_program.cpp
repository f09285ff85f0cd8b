#include "tests/results/tiny_program.hpp"

#include <unistd.h>

#include "tests/support/remove_at_exit.hpp"

namespace geotrain::test {

Program tiny_program() {
  Program p;
  p.strategy = "tiny";
  p.world_size = 2;
  p.device_of_rank = {3, 5};
  p.groups = {Group{0, "dp, world", {0, 1}}};
  p.sequences_per_iteration = 2;
  p.tokens_per_iteration = 256;
  p.model_flops_per_iteration = 1.5e12;
  const Op compute{ComputeOp{}, false, "fwd"};
  const Op allreduce{CollectiveOp{CollectiveKind::allreduce, 0, 1024}, false, "allreduce"};
  p.ranks = {{compute, Op{SendOp{1, 4096, 0}, true, "say \"hi\", x"}, allreduce},
             {compute, Op{RecvOp{0, 4096, 0}, false, "recv"}, allreduce}};
  return p;
}

std::filesystem::path scratch_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("geotrain_results_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  remove_at_exit(dir.string());
  return dir;
}

}  // namespace geotrain::test
