#pragma once
// The run-time rules behind DynamicOp (program.hpp), as pure code both executors call: the
// SimGrid engine in simulated time, the LibTorch worker in wall-clock time. Given the same
// arrival order and the same seed they decide the same groups and the same partners.
#include <atomic>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/program/program.hpp"

namespace geotrain {

// A counter-based generator (splitmix64): the value depends only on (seed, keys), not on how
// many values were drawn before, so an executor may evaluate draws in any order.
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0,
                       std::uint64_t c = 0);
// Uniform in [0, 1) from mix_seed.
double unit_draw(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0);

// AD-PSGD gossip: round `round` pairs the `members` positions (0..members-1) by a seeded shuffle
// (Fisher-Yates on mix_seed draws) and matching neighbours in it; with an odd count the last
// one sits the round out. partner[i] is the position paired with i, or -1. Every member computes
// the same pairing, so a pair only waits for each other (no global barrier), and the pairing is
// symmetric, so no exchange can deadlock.
std::vector<int> gossip_pairing(std::uint64_t seed, std::int64_t round, int members);

// SD-Pipe partial reduce, one coordinator per group (Hetu's PartialReduce: a window opens when
// the first member is ready; the members ready before it closes average together; the window
// doubles (up to max) when a group had fewer than 2 members and shrinks by 10% (down to min)
// otherwise). Forced full synchronisation: once `full_sync_every` arrivals (worker updates)
// have been counted since the last full sync, the next window stays open until every member is
// ready. A member whose last round is over `leave`s: no window waits for it any more (without
// this a full sync near the end of a run would wait for a member that has finished). Time is
// whatever clock the executor uses, in seconds.
//
// Groups of one run share a FullSyncBaton: a window becomes the full sync only if it can take
// the baton when it opens, and holds it until it closes; otherwise it is an ordinary window and
// the full sync stays due for the next one. Hetu's scheduler does the same (one reduce key in a
// "graph sync" at a time). Without it SD-Pipe deadlocks: stage 0's full sync waits for a
// replica whose stage-0 rank waits for gradients from its stage-1 rank, which sits in stage 1's
// full sync waiting for another replica whose stage-1 rank waits for its stage-0 rank, which is
// in stage 0's full sync (measured: 16 workers, 2 stages x 8 replicas, DT-FM cases 3 and 4).
// With one unbounded window at a time every other window closes by its deadline, so every
// member of the holding group arrives.
class FullSyncBaton {
 public:
  // Takes the baton for `owner` if nobody holds it; true if `owner` holds it now.
  bool try_take(const void* owner) {
    const void* expected = nullptr;
    return holder_.compare_exchange_strong(expected, owner) || expected == owner;
  }
  void release(const void* owner) {
    const void* expected = owner;
    holder_.compare_exchange_strong(expected, nullptr);
  }
  bool held() const { return holder_.load() != nullptr; }

 private:
  // Atomic: the emulator's coordinators of one run are threads of one process.
  std::atomic<const void*> holder_{nullptr};
};

class PartialReduceWindow {
 public:
  // baton: shared with the run's other partial-reduce windows; nullptr: this window's own.
  PartialReduceWindow(int members, double window_s, double window_min_s, double window_max_s,
                      int full_sync_every, FullSyncBaton* baton = nullptr);
  PartialReduceWindow(const PartialReduceRule& rule, int members, FullSyncBaton* baton = nullptr)
      : PartialReduceWindow(members, rule.window_s, rule.window_min_s, rule.window_max_s,
                            rule.full_sync_every, baton) {}
  ~PartialReduceWindow();
  PartialReduceWindow(const PartialReduceWindow&) = delete;
  PartialReduceWindow& operator=(const PartialReduceWindow&) = delete;

  // Member `member` (position in the group) is ready at `now_s` (non-decreasing over calls).
  // Opens a window when none is open (the full sync, if one is due and the baton is free). A
  // member that is already waiting is an error.
  void ready(int member, double now_s);
  // When the open window closes: its deadline, or now when every member is in, or never
  // (nullopt) while no window is open or a full sync still waits for members.
  std::optional<double> closes_at_s() const;
  bool open() const { return !waiting_.empty(); }
  // Closes the open window: the waiting members (sorted) form the group; adapts the window.
  std::vector<int> close();
  // Member `member` will not be ready again (not while it waits: that is an error).
  void leave(int member);
  // Every member that has not left is waiting.
  bool all_in() const { return !waiting_.empty() && static_cast<int>(waiting_.size()) == active_; }

  double window_s() const { return window_s_; }
  // A full sync is due: the next window that can take the baton waits for everyone.
  bool full_sync_pending() const { return sync_due_; }
  // The open window is the full sync (it holds the baton).
  bool full_sync_open() const { return full_sync_; }
  std::int64_t groups_closed() const { return groups_; }

 private:
  int members_;
  int active_;              // members that have not left
  std::vector<bool> gone_;
  double window_s_, min_s_, max_s_;
  int full_sync_every_;
  std::vector<int> waiting_;
  double opened_s_ = 0, last_arrival_s_ = 0;
  FullSyncBaton own_baton_;  // when the run shares none
  FullSyncBaton* baton_;
  bool sync_due_ = false;   // full_sync_every updates counted since the last full sync
  bool full_sync_ = false;  // the open window is the full sync: it waits for everyone
  std::int64_t arrivals_since_sync_ = 0;
  std::int64_t groups_ = 0;
};

}  // namespace geotrain
