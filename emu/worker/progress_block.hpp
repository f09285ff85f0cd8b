#pragma once
// A worker's live status, shared with the launcher through a small memory-mapped file
// (<run>/ranks/<r>/progress.bin). The worker stores the op it is entering and each finished
// iteration with plain atomic stores (no system call, so the per-op cost is a few ns); the
// launcher maps the same file and reads it at any time, even after the worker was killed or while
// it is stopped. That is how a failure names the op a rank was in and how the launcher prints a
// progress line per iteration while the workers run. Header-only: the LibTorch worker and the
// torch-free launcher both include it.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <string>

#include "sim/common/error.hpp"

namespace geotrain {

struct ProgressBlock {
  static constexpr std::uint32_t kMagic = 0x67747072;  // "gtpr"
  std::uint32_t magic;
  std::int32_t step;         // step of the op being executed (-1: not started)
  std::int32_t op;           // index of that op in the rank's Program list
  std::int32_t steps_done;   // iterations finished; the last_* fields describe the last one
  std::uint64_t ops_started; // grows with every op: unchanged for long = the rank is stuck
  double last_time_s;
  double last_loss;          // NaN on ranks that do not compute the loss
  double last_tokens_per_s;
};

// A mapping of one progress file. create: make (or reset) the file, as the launcher does.
class ProgressMap {
 public:
  ProgressMap(const std::string& path, bool create) {
    const int fd = ::open(path.c_str(), create ? (O_RDWR | O_CREAT | O_TRUNC) : O_RDWR, 0644);
    if (fd < 0) throw SystemError("open " + path, errno, "");
    if (create && ::ftruncate(fd, sizeof(ProgressBlock)) != 0) {
      const int e = errno;
      ::close(fd);
      throw SystemError("ftruncate " + path, e, "");
    }
    void* p = ::mmap(nullptr, sizeof(ProgressBlock), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    const int e = errno;
    ::close(fd);
    if (p == MAP_FAILED) throw SystemError("mmap " + path, e, "");
    block_ = static_cast<ProgressBlock*>(p);
    if (create) {
      block_->magic = ProgressBlock::kMagic;
      block_->step = -1;
      block_->op = -1;
    }
  }
  ~ProgressMap() { ::munmap(block_, sizeof(ProgressBlock)); }
  ProgressMap(const ProgressMap&) = delete;
  ProgressMap& operator=(const ProgressMap&) = delete;

  // Worker side.
  void begin_op(int step, int op) {
    std::atomic_ref<std::int32_t>(block_->step).store(step, std::memory_order_relaxed);
    std::atomic_ref<std::int32_t>(block_->op).store(op, std::memory_order_relaxed);
    std::atomic_ref<std::uint64_t>(block_->ops_started).fetch_add(1, std::memory_order_release);
  }
  void end_step(double time_s, double loss, double tokens_per_s) {
    block_->last_time_s = time_s;
    block_->last_loss = loss;
    block_->last_tokens_per_s = tokens_per_s;
    std::atomic_ref<std::int32_t>(block_->steps_done).fetch_add(1, std::memory_order_release);
  }

  // Launcher side: a consistent-enough copy (fields are read individually).
  ProgressBlock snapshot() const {
    ProgressBlock b{};
    b.magic = block_->magic;
    b.steps_done = std::atomic_ref<std::int32_t>(block_->steps_done).load(std::memory_order_acquire);
    b.ops_started = std::atomic_ref<std::uint64_t>(block_->ops_started).load(std::memory_order_acquire);
    b.step = std::atomic_ref<std::int32_t>(block_->step).load(std::memory_order_relaxed);
    b.op = std::atomic_ref<std::int32_t>(block_->op).load(std::memory_order_relaxed);
    b.last_time_s = block_->last_time_s;
    b.last_loss = block_->last_loss;
    b.last_tokens_per_s = block_->last_tokens_per_s;
    return b;
  }

 private:
  ProgressBlock* block_ = nullptr;
};

}  // namespace geotrain
