#pragma once
// Every collective instance of a run: which group, and when each member entered it. Members of
// a group run its collectives in the same order, so (group, sequence number) names an instance
// on every member. The aggregated ring also meets here: the last member to enter computes every
// member's finish time and releases the others.
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <simgrid/s4u/Semaphore.hpp>

namespace geotrain::engine {

struct CollectiveInstance {
  int group = 0;
  std::vector<double> entry_s;  // by group position; -1 until that member entered
  int entered = 0;
  int waiting = 0;  // actors blocked in await_all_members (a simulated rank enters for its twins too)
  double last_entry_s = 0;
  // Aggregated ring only: released once per waiting member when the last one entered.
  simgrid::s4u::SemaphorePtr all_entered;
  std::vector<double> finish_s;    // by position: when the member leaves the collective
  std::vector<double> link_end_s;  // by position: last transfer on the link position -> next ends
  std::vector<double> send_bytes;  // by position: bytes sent to the next member
};

// The aggregated forms' meeting point: the last of the instance's `members` to enter runs `plan`
// (which fills the instance's plan) and releases the others, who wait until then.
void await_all_members(CollectiveInstance& inst, int members, const std::function<void()>& plan);

class CollectiveRegistry {
 public:
  // Records that `position` of a `size`-member group entered its `sequence`-th collective at
  // `now_s`; returns the instance index.
  int enter(int group, long sequence, int position, int size, double now_s);
  CollectiveInstance& instance(int index) { return instances_[static_cast<std::size_t>(index)]; }
  const CollectiveInstance& instance(int index) const {
    return instances_[static_cast<std::size_t>(index)];
  }

 private:
  std::map<std::pair<int, long>, int> index_;
  std::deque<CollectiveInstance> instances_;  // stable references across blocking calls
};

}  // namespace geotrain::engine
