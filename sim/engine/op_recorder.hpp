#pragma once
// Per-op timings of one simulation: for every rank, iteration and op index, when the op started
// and ended, how many bytes it put on the wire and which interval of it was spent waiting for
// peers (idle) rather than moving data. Filled by the actors, read by metrics and writers.
#include <cstddef>
#include <vector>

namespace geotrain::engine {

struct OpRecord {
  double start_s = -1;           // when the rank reached the op
  double end_s = -1;             // when it completed (nonblocking ops: when the work finished)
  double transfer_start_s = -1;  // sends: when the data started to move (after earlier sends)
  double bytes_sent = 0;         // bytes this rank put on the wire for this op
  // Waiting for peers: recvs wait for the sender to start, collectives for the last member to
  // enter. Blocked time inside [idle_from_s, idle_to_s] counts as idle, the rest as communication.
  double idle_from_s = 0;
  double idle_to_s = 0;
  double idle_s = 0;             // idle time charged to this op (filled by compute_idle)
  int collective_instance = -1;  // into CollectiveRegistry
  // Whether the op ran: an op inactive in an iteration (Op::iterations) keeps no record.
  bool ran() const { return start_s >= 0; }
};

class OpRecorder {
 public:
  OpRecorder(const std::vector<std::size_t>& ops_per_rank, int iterations);

  OpRecord& at(int rank, int iteration, int index) {
    return records_[static_cast<std::size_t>(rank)]
                   [static_cast<std::size_t>(iteration) * ops_[static_cast<std::size_t>(rank)] +
                    static_cast<std::size_t>(index)];
  }
  const OpRecord& at(int rank, int iteration, int index) const {
    return const_cast<OpRecorder*>(this)->at(rank, iteration, index);
  }
  int ranks() const { return static_cast<int>(records_.size()); }
  int iterations() const { return iterations_; }
  std::size_t ops(int rank) const { return ops_[static_cast<std::size_t>(rank)]; }

 private:
  std::vector<std::size_t> ops_;
  int iterations_;
  std::vector<std::vector<OpRecord>> records_;
};

}  // namespace geotrain::engine
