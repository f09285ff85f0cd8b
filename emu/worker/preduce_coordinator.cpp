#include "emu/worker/preduce_coordinator.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/common/error.hpp"
#include "sim/program/dynamic_rules.hpp"

namespace geotrain {

namespace {

std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
std::string text_of(const std::vector<std::uint8_t>& v) { return {v.begin(), v.end()}; }

struct Arrival {
  int position = 0;
  std::int64_t k = 0;
  double ready_s = 0;
};

}  // namespace

std::string preduce_prefix(const DynamicOp& op) {
  return fmt::format("preduce/{}/{}", op.group, op.tag);
}

std::vector<int> preduce_ready(c10d::Store& store, const std::string& prefix, int position,
                               std::int64_t k, double ready_s) {
  const auto n = store.add(prefix + "/n", 1);
  store.set(fmt::format("{}/a/{}", prefix, n), bytes_of(fmt::format("{} {} {:.9f}", position, k, ready_s)));
  std::istringstream in(text_of(store.get(fmt::format("{}/d/{}/{}", prefix, position, k))));
  std::vector<int> members;
  for (int m; in >> m;) members.push_back(m);
  return members;
}

PreduceCoordinator::PreduceCoordinator(Cluster& cluster, const DynamicOp& op, int members,
                                       std::int64_t arrivals)
    : cluster_(cluster), op_(op), members_(members), arrivals_(arrivals), prefix_(preduce_prefix(op)) {
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
  auto store = cluster_.connect_store();
  PartialReduceWindow rule(op_, members_);
  std::vector<Arrival> queue;          // received, not yet fed to the window (ready-time order)
  std::map<int, std::int64_t> run_of;  // waiting position -> its k
  std::int64_t next = 1, decided = 0;
  // Every member runs the op equally often; after its last round it leaves the window (as in
  // the simulator, dynamic_rules.hpp), so a full sync at the end does not wait for it.
  const std::int64_t per_member = arrivals_ / members_;
  std::map<int, std::int64_t> rounds_of;
  double lag_s = 0;
  while (decided < arrivals_ && !stop_) {
    bool progressed = false;
    const auto key = fmt::format("{}/a/{}", prefix_, next);
    if (store->check({key})) {
      std::istringstream in(text_of(store->get(key)));
      Arrival a;
      in >> a.position >> a.k >> a.ready_s;
      lag_s = std::max(lag_s, cluster_.now_s() - a.ready_s);
      queue.insert(std::upper_bound(queue.begin(), queue.end(), a,
                                    [](const Arrival& x, const Arrival& y) { return x.ready_s < y.ready_s; }),
                   a);
      ++next;
      progressed = true;
    }
    // Feed arrivals that belong to the open window (or open one); later ones wait for its close.
    while (!queue.empty()) {
      const auto closes = rule.closes_at_s();
      if (rule.open() && closes && queue.front().ready_s > *closes) break;
      rule.ready(queue.front().position, queue.front().ready_s);
      run_of[queue.front().position] = queue.front().k;
      queue.erase(queue.begin());
    }
    const auto closes = rule.closes_at_s();
    const bool everyone = rule.all_in();
    if (closes && (everyone || cluster_.now_s() >= *closes + 1.5 * lag_s + 1e-3)) {
      const auto group = rule.close();
      const std::string value = fmt::format("{}", fmt::join(group, " "));
      for (int m : group) store->set(fmt::format("{}/d/{}/{}", prefix_, m, run_of.at(m)), bytes_of(value));
      for (int m : group) run_of.erase(m);
      for (int m : group)
        if (++rounds_of[m] == per_member) rule.leave(m);
      decided += static_cast<std::int64_t>(group.size());
      progressed = true;
    }
    if (!progressed) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace geotrain
