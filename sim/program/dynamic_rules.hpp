#pragma once
// The run-time rules behind DynamicOp (program.hpp), as pure code both executors call: the
// SimGrid engine in simulated time, the LibTorch worker in wall-clock time. Given the same
// arrival order and the same seed they decide the same groups and the same partners.
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
class PartialReduceWindow {
 public:
  PartialReduceWindow(int members, double window_s, double window_min_s, double window_max_s,
                      int full_sync_every);
  PartialReduceWindow(const PartialReduceRule& rule, int members)
      : PartialReduceWindow(members, rule.window_s, rule.window_min_s, rule.window_max_s,
                            rule.full_sync_every) {}

  // Member `member` (position in the group) is ready at `now_s` (non-decreasing over calls).
  // Opens a window when none is open. A member that is already waiting is an error.
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
  bool full_sync_pending() const { return full_sync_; }
  std::int64_t groups_closed() const { return groups_; }

 private:
  int members_;
  int active_;              // members that have not left
  std::vector<bool> gone_;
  double window_s_, min_s_, max_s_;
  int full_sync_every_;
  std::vector<int> waiting_;
  double opened_s_ = 0, last_arrival_s_ = 0;
  bool full_sync_ = false;  // the open (or next) window waits for everyone
  std::int64_t arrivals_since_sync_ = 0;
  std::int64_t groups_ = 0;
};

}  // namespace geotrain
