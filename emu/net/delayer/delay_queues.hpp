#pragma once
// The due-time structure of geotrain-delayer. Every NFQUEUE number carries the packets of one
// source, and one source has one fixed delay, so each queue is a FIFO whose head is always its
// earliest packet: pushing and releasing are O(1), and the next wake-up is the minimum over the
// queue heads (a handful per namespace). No heap, no per-packet allocation: each FIFO is a
// ring buffer that only grows.
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace geotrain::emu::delayer {

class DelayQueues {
 public:
  static constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

  // Queue numbers are 16-bit in NFQUEUE; delay_ns >= 0.
  void add_queue(int queue_num, std::int64_t delay_ns);
  bool has_queue(int queue_num) const;

  // A packet of queue_num, given the kernel's packet id, arrived at arrival_ns. Its due time is
  // arrival + delay, but never before the due time of the packet ahead of it: a batch verdict
  // releases a FIFO prefix, so due times must not decrease within a queue.
  void push(int queue_num, std::uint32_t packet_id, std::int64_t arrival_ns);

  // The smallest delay of any queue (kNever when there is none).
  std::int64_t min_delay_ns() const;

  // Earliest due time of any held packet, kNever when none is held.
  std::int64_t next_due_ns() const;

  // Releases every packet due at now_ns; for each queue with releases calls
  // release(queue_num, highest released id, count). NFQUEUE's batch verdict accepts every packet
  // of a queue up to an id, which is exactly a FIFO prefix. Returns the number released.
  using ReleaseFn = std::function<void(int queue_num, std::uint32_t last_id, std::size_t count)>;
  std::size_t release_due(std::int64_t now_ns, const ReleaseFn& release);

  std::size_t held() const { return held_; }
  std::size_t max_held() const { return max_held_; }
  // Lateness of releases (now - due), for the stats file.
  std::int64_t lateness_max_ns() const { return lateness_max_ns_; }
  double lateness_mean_ns() const;
  std::uint64_t released() const { return released_; }

 private:
  struct Entry {
    std::uint32_t id;
    std::int64_t due_ns;
  };
  struct Fifo {
    int queue_num = 0;
    std::int64_t delay_ns = 0;
    std::vector<Entry> ring = std::vector<Entry>(64);
    std::size_t head = 0, size = 0;
    void push(Entry e);
    const Entry& front() const { return ring[head]; }
    const Entry& back() const { return ring[(head + size - 1) % ring.size()]; }
    void pop() { head = (head + 1) % ring.size(), --size; }
  };
  std::vector<Fifo> fifos_;
  std::vector<int> index_of_queue_ = std::vector<int>(65536, -1);
  std::size_t held_ = 0, max_held_ = 0;
  std::uint64_t released_ = 0;
  std::int64_t lateness_max_ns_ = 0;
  double lateness_sum_ns_ = 0;
};

}  // namespace geotrain::emu::delayer
