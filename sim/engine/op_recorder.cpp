#include "sim/engine/op_recorder.hpp"

namespace geotrain::engine {

OpRecorder::OpRecorder(const std::vector<std::size_t>& ops_per_rank, int iterations)
    : ops_(ops_per_rank), iterations_(iterations) {
  records_.reserve(ops_.size());
  for (std::size_t n : ops_) records_.emplace_back(n * static_cast<std::size_t>(iterations));
}

}  // namespace geotrain::engine
