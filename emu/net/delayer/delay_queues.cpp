#include "emu/net/delayer/delay_queues.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace geotrain::emu::delayer {

void DelayQueues::Fifo::push(Entry e) {
  if (size == ring.size()) {
    // Unroll the ring into a buffer twice as large, oldest first.
    std::vector<Entry> bigger(ring.size() * 2);
    for (std::size_t i = 0; i < size; ++i) bigger[i] = ring[(head + i) % ring.size()];
    ring = std::move(bigger);
    head = 0;
  }
  ring[(head + size) % ring.size()] = e;
  ++size;
}

void DelayQueues::add_queue(int queue_num, std::int64_t delay_ns) {
  if (queue_num < 0 || queue_num > 65535 || delay_ns < 0)
    throw std::invalid_argument("queue " + std::to_string(queue_num) + " with delay " +
                                std::to_string(delay_ns) + " ns (expected 0..65535, delay >= 0)");
  if (has_queue(queue_num)) throw std::invalid_argument("queue " + std::to_string(queue_num) + " given twice");
  index_of_queue_[static_cast<std::size_t>(queue_num)] = static_cast<int>(fifos_.size());
  Fifo f;
  f.queue_num = queue_num;
  f.delay_ns = delay_ns;
  fifos_.push_back(std::move(f));
}

bool DelayQueues::has_queue(int queue_num) const {
  return queue_num >= 0 && queue_num <= 65535 &&
         index_of_queue_[static_cast<std::size_t>(queue_num)] >= 0;
}

void DelayQueues::push(int queue_num, std::uint32_t packet_id, std::int64_t arrival_ns) {
  Fifo& f = fifos_.at(static_cast<std::size_t>(index_of_queue_.at(static_cast<std::size_t>(queue_num))));
  std::int64_t due = arrival_ns + f.delay_ns;
  if (f.size > 0) due = std::max(due, f.back().due_ns);
  f.push({packet_id, due});
  max_held_ = std::max(max_held_, ++held_);
}

std::int64_t DelayQueues::min_delay_ns() const {
  std::int64_t least = kNever;
  for (const Fifo& f : fifos_) least = std::min(least, f.delay_ns);
  return least;
}

std::int64_t DelayQueues::next_due_ns() const {
  std::int64_t next = kNever;
  for (const Fifo& f : fifos_)
    if (f.size > 0) next = std::min(next, f.front().due_ns);
  return next;
}

std::size_t DelayQueues::release_due(std::int64_t now_ns, const ReleaseFn& release) {
  std::size_t total = 0;
  for (Fifo& f : fifos_) {
    std::size_t count = 0;
    std::uint32_t last = 0;
    while (f.size > 0 && f.front().due_ns <= now_ns) {
      const std::int64_t late = now_ns - f.front().due_ns;
      lateness_max_ns_ = std::max(lateness_max_ns_, late);
      lateness_sum_ns_ += static_cast<double>(late);
      last = f.front().id;
      f.pop();
      ++count;
    }
    if (count == 0) continue;
    release(f.queue_num, last, count);
    total += count;
  }
  held_ -= total;
  released_ += total;
  return total;
}

double DelayQueues::lateness_mean_ns() const {
  return released_ == 0 ? 0 : lateness_sum_ns_ / static_cast<double>(released_);
}

}  // namespace geotrain::emu::delayer
