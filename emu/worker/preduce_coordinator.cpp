#include "emu/worker/preduce_coordinator.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "emu/worker/byte_text.hpp"
#include "sim/common/error.hpp"
#include "sim/program/dynamic_rules.hpp"

namespace geotrain {

std::string preduce_prefix(const DynamicOp& op) {
  return fmt::format("preduce/{}/{}", op.group, op.tag);
}

std::vector<int> preduce_ready(c10d::Store& store, const std::string& prefix, int position,
                               std::int64_t k) {
  store.set(fmt::format("{}/a/{}/{}", prefix, position, k), bytes_of("1"));
  std::istringstream in(text_of(store.get(fmt::format("{}/d/{}/{}", prefix, position, k))));
  std::vector<int> members;
  for (int m; in >> m;) members.push_back(m);
  return members;
}

PreduceCoordinator::PreduceCoordinator(Cluster& cluster, const DynamicOp& op, int members,
                                       std::int64_t arrivals, FullSyncBaton& baton)
    : cluster_(cluster),
      op_(op),
      members_(members),
      arrivals_(arrivals),
      prefix_(preduce_prefix(op)),
      baton_(baton) {
  thread_ = std::thread([this] {
    try {
      run();
    } catch (...) {
      error_ = std::current_exception();
    }
    done_ = true;
  });
}

PreduceCoordinator::~PreduceCoordinator() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void PreduceCoordinator::finish() {
  const auto deadline = std::chrono::steady_clock::now() + cluster_.timeout();
  while (!done_ && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!done_)
    throw TimeoutError(fmt::format("rank {}: partial-reduce coordinator of group {} still waits "
                                   "for arrivals (expected {})", cluster_.rank(), op_.group, arrivals_),
                       static_cast<double>(cluster_.timeout().count()) / 1000);
  thread_.join();
  if (error_) std::rethrow_exception(error_);
}

void PreduceCoordinator::run() {
  auto store = cluster_.connect_store();  // local: this thread runs next to the store
  PartialReduceWindow rule(std::get<PartialReduceRule>(op_.rule), members_, &baton_);
  // Every member runs the op equally often; after its last round it leaves the window (as in
  // the simulator, dynamic_rules.hpp), so a full sync at the end does not wait for it.
  const std::int64_t per_member = arrivals_ / members_;
  std::vector<std::int64_t> next(static_cast<std::size_t>(members_), 0);  // each member's next k
  std::vector<bool> waiting(static_cast<std::size_t>(members_), false);
  std::int64_t decided = 0;
  while (decided < arrivals_ && !stop_) {
    bool progressed = false;
    for (int m = 0; m < members_; ++m) {
      const auto i = static_cast<std::size_t>(m);
      if (waiting[i] || next[i] >= per_member) continue;
      if (!store->check({fmt::format("{}/a/{}/{}", prefix_, m, next[i])})) continue;
      // An arrival after the open window's deadline closes that window first (below).
      const auto closes = rule.closes_at_s();
      if (rule.open() && closes && cluster_.now_s() > *closes) break;
      rule.ready(m, cluster_.now_s());
      waiting[i] = true;
      progressed = true;
    }
    const auto closes = rule.closes_at_s();
    if (closes && cluster_.now_s() >= *closes) {
      const auto group = rule.close();
      const std::string value = fmt::format("{}", fmt::join(group, " "));
      for (int m : group) {
        const auto i = static_cast<std::size_t>(m);
        store->set(fmt::format("{}/d/{}/{}", prefix_, m, next[i]), bytes_of(value));
        waiting[i] = false;
        if (++next[i] == per_member) rule.leave(m);
      }
      decided += static_cast<std::int64_t>(group.size());
      progressed = true;
    }
    if (!progressed) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

}  // namespace geotrain
