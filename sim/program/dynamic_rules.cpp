#include "sim/program/dynamic_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "sim/common/error.hpp"

namespace geotrain {

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b) ^ c);
}

double unit_draw(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  // The top 53 bits make an exact double in [0, 1).
  return static_cast<double>(mix_seed(seed, a, b, c) >> 11) * 0x1.0p-53;
}

std::vector<int> gossip_pairing(std::uint64_t seed, std::int64_t round, int members) {
  std::vector<int> order(static_cast<std::size_t>(std::max(members, 0)));
  std::iota(order.begin(), order.end(), 0);
  for (int i = members - 1; i > 0; --i) {
    const auto j = static_cast<int>(mix_seed(seed, static_cast<std::uint64_t>(round),
                                             static_cast<std::uint64_t>(i)) %
                                    static_cast<std::uint64_t>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
  }
  std::vector<int> partner(order.size(), -1);
  for (std::size_t k = 0; k + 1 < order.size(); k += 2) {
    partner[static_cast<std::size_t>(order[k])] = order[k + 1];
    partner[static_cast<std::size_t>(order[k + 1])] = order[k];
  }
  return partner;
}

PartialReduceWindow::PartialReduceWindow(int members, double window_s, double window_min_s,
                                         double window_max_s, int full_sync_every,
                                         FullSyncBaton* baton)
    : members_(members),
      active_(members),
      gone_(static_cast<std::size_t>(std::max(members, 0)), false),
      window_s_(window_s),
      min_s_(window_min_s > 0 ? window_min_s : window_s),
      max_s_(window_max_s > 0 ? window_max_s : window_s),
      full_sync_every_(full_sync_every),
      baton_(baton ? baton : &own_baton_) {
  if (members < 1 || !(window_s >= 0) || min_s_ > max_s_ || window_s < min_s_ ||
      window_s > max_s_ || full_sync_every < 0)
    throw Error(fmt::format("partial reduce: members {}, window {} s in [{}, {}] s, full sync "
                            "every {} (expected members >= 1, min <= window <= max, every >= 0)",
                            members, window_s, min_s_, max_s_, full_sync_every));
}

PartialReduceWindow::~PartialReduceWindow() {
  if (full_sync_) baton_->release(this);
}

void PartialReduceWindow::ready(int member, double now_s) {
  if (member < 0 || member >= members_ ||
      std::find(waiting_.begin(), waiting_.end(), member) != waiting_.end() ||
      gone_[static_cast<std::size_t>(member)])
    throw Error(fmt::format("partial reduce: member {} ready twice, after leaving, or outside "
                            "0..{}", member, members_ - 1));
  if (waiting_.empty()) {
    opened_s_ = now_s;
    full_sync_ = sync_due_ && baton_->try_take(this);
  }
  last_arrival_s_ = now_s;
  waiting_.push_back(member);
  ++arrivals_since_sync_;
}

std::optional<double> PartialReduceWindow::closes_at_s() const {
  if (waiting_.empty()) return std::nullopt;
  if (all_in()) return last_arrival_s_;  // nobody to wait for
  if (full_sync_) return std::nullopt;
  return opened_s_ + window_s_;
}

std::vector<int> PartialReduceWindow::close() {
  std::vector<int> group = std::move(waiting_);
  waiting_.clear();
  std::sort(group.begin(), group.end());
  ++groups_;
  // A full-sync window closes only with everyone in (closes_at_s).
  if (full_sync_) {
    full_sync_ = false;
    sync_due_ = false;
    arrivals_since_sync_ = 0;
    baton_->release(this);
  } else if (!sync_due_ && full_sync_every_ > 0 && arrivals_since_sync_ >= full_sync_every_) {
    sync_due_ = true;
  }
  // Hetu's rule (min_worker = 2): a lonely member means the window was too short.
  if (group.size() < 2 && active_ >= 2)
    window_s_ = std::min(window_s_ * 2, max_s_);
  else
    window_s_ = std::max(window_s_ * 0.9, min_s_);
  return group;
}

void PartialReduceWindow::leave(int member) {
  if (member < 0 || member >= members_ || gone_[static_cast<std::size_t>(member)] ||
      std::find(waiting_.begin(), waiting_.end(), member) != waiting_.end())
    throw Error(fmt::format("partial reduce: member {} cannot leave (outside 0..{}, gone, or "
                            "waiting)", member, members_ - 1));
  gone_[static_cast<std::size_t>(member)] = true;
  --active_;
}

}  // namespace geotrain
