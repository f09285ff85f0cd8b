#include "sim/engine/collective_registry.hpp"

#include <algorithm>

namespace geotrain::engine {

void await_all_members(CollectiveInstance& inst, int members, const std::function<void()>& plan) {
  auto semaphore = simgrid::s4u::Semaphore::create(0);  // checked and stored without yielding in between
  if (!inst.all_entered) inst.all_entered = semaphore;
  if (inst.entered < members) {
    ++inst.waiting;
    inst.all_entered->acquire();
    return;
  }
  plan();
  for (int i = 0; i < inst.waiting; ++i) inst.all_entered->release();
}

int CollectiveRegistry::enter(int group, long sequence, int position, int size, double now_s) {
  auto [it, fresh] = index_.try_emplace({group, sequence}, static_cast<int>(instances_.size()));
  if (fresh) {
    CollectiveInstance c;
    c.group = group;
    c.entry_s.assign(static_cast<std::size_t>(size), -1.0);
    instances_.push_back(std::move(c));
  }
  CollectiveInstance& c = instances_[static_cast<std::size_t>(it->second)];
  c.entry_s[static_cast<std::size_t>(position)] = now_s;
  ++c.entered;
  c.last_entry_s = std::max(c.last_entry_s, now_s);
  return it->second;
}

}  // namespace geotrain::engine
