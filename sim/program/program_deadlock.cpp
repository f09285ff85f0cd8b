// Abstract execution of a Program's op order (see program_validation.hpp for the semantics).
// Ranks run until they block; every completion wakes the ranks involved, so the cost is linear
// in ops plus matches, which keeps 4,096-rank Programs cheap to validate.
#include <fmt/format.h>

#include <deque>
#include <map>
#include <tuple>

#include "sim/program/program_checks.hpp"

namespace geotrain::detail {

namespace {

using OpRef = std::pair<int, int>;  // (rank, index)

struct Channel {
  std::vector<OpRef> sends, recvs;
  std::size_t matched = 0;
};

struct Instance {
  std::vector<OpRef> arrived;
};

class Execution {
 public:
  explicit Execution(const Program& p)
      : p_(p),
        pc_(p.ranks.size(), 0),
        done_(p.ranks.size()),
        posted_(p.ranks.size()),
        queued_(p.ranks.size(), true) {
    for (std::size_t r = 0; r < p.ranks.size(); ++r) {
      done_[r].assign(p.ranks[r].size(), false);
      posted_[r].assign(p.ranks[r].size(), false);
      queue_.push_back(static_cast<int>(r));
    }
  }

  void run() {
    while (!queue_.empty()) {
      const int r = queue_.front();
      queue_.pop_front();
      queued_[static_cast<std::size_t>(r)] = false;
      advance(r);
    }
  }

  void report(Problems& problems) const {
    for (std::size_t r = 0; r < p_.ranks.size(); ++r) {
      const int i = pc_[r];
      if (static_cast<std::size_t>(i) >= p_.ranks[r].size()) continue;
      const Op& op = p_.ranks[r][static_cast<std::size_t>(i)];
      problems.add(fmt::format("deadlock: {} never completes: {}{}{}",
                               op_where(p_, static_cast<int>(r), i), op_summary(p_, op),
                               collective_progress(static_cast<int>(r), op),
                               pending_of_wait(r, op)));
    }
  }

 private:
  void advance(int r) {
    const auto ur = static_cast<std::size_t>(r);
    const auto& ops = p_.ranks[ur];
    while (static_cast<std::size_t>(pc_[ur]) < ops.size()) {
      const int i = pc_[ur];
      const auto ui = static_cast<std::size_t>(i);
      const Op& op = ops[ui];
      if (const auto* w = op.as<WaitOp>()) {
        for (int j : w->ops)
          if (!done_[ur][static_cast<std::size_t>(j)]) return;
      } else if (op.as<ComputeOp>() || op.as<DynamicOp>()) {
        done_[ur][ui] = true;
      } else {
        if (!posted_[ur][ui]) post(r, i, op);
        if (!op.nonblocking && !done_[ur][ui]) return;
      }
      ++pc_[ur];
    }
  }

  void post(int r, int i, const Op& op) {
    posted_[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)] = true;
    if (const auto* s = op.as<SendOp>()) {
      Channel& c = channels_[{r, s->peer, s->tag}];
      c.sends.emplace_back(r, i);
      match(c);
    } else if (const auto* v = op.as<RecvOp>()) {
      Channel& c = channels_[{v->peer, r, v->tag}];
      c.recvs.emplace_back(r, i);
      match(c);
    } else if (const auto* c = op.as<CollectiveOp>()) {
      int& next = instance_of_[{r, c->group}];
      auto& instances = instances_[c->group];
      if (instances.size() <= static_cast<std::size_t>(next))
        instances.resize(static_cast<std::size_t>(next) + 1);
      Instance& inst = instances[static_cast<std::size_t>(next++)];
      inst.arrived.emplace_back(r, i);
      if (inst.arrived.size() == p_.group(c->group).ranks.size())
        for (const auto& [q, j] : inst.arrived) complete(q, j);
    }
  }

  void match(Channel& c) {
    while (c.matched < c.sends.size() && c.matched < c.recvs.size()) {
      complete(c.sends[c.matched].first, c.sends[c.matched].second);
      complete(c.recvs[c.matched].first, c.recvs[c.matched].second);
      ++c.matched;
    }
  }

  void complete(int r, int i) {
    const auto ur = static_cast<std::size_t>(r);
    done_[ur][static_cast<std::size_t>(i)] = true;
    if (!queued_[ur]) queued_[ur] = true, queue_.push_back(r);
  }

  // " (pending: op 3 'recv act s1 mb0': recv from 0 tag 0 (8 B))" for a stuck Wait.
  std::string pending_of_wait(std::size_t r, const Op& op) const {
    const auto* w = op.as<WaitOp>();
    if (!w) return "";
    std::string pending;
    for (int j : w->ops) {
      if (done_[r][static_cast<std::size_t>(j)]) continue;
      const Op& named = p_.ranks[r][static_cast<std::size_t>(j)];
      pending += fmt::format("{}op {} '{}': {}", pending.empty() ? "" : "; ", j, named.label,
                             op_summary(p_, named));
    }
    return " (pending: " + pending + ")";
  }

  std::string collective_progress(int r, const Op& op) const {
    const auto* c = op.as<CollectiveOp>();
    if (!c) return "";
    const auto it = instance_of_.find({r, c->group});
    const auto inst = instances_.find(c->group);
    if (it == instance_of_.end() || inst == instances_.end()) return "";
    const auto& arrived = inst->second[static_cast<std::size_t>(it->second - 1)].arrived;
    std::string who;
    for (const auto& [q, j] : arrived) who += (who.empty() ? "" : ", ") + std::to_string(q);
    return fmt::format(" ({} of {} members entered: ranks {})", arrived.size(),
                       p_.group(c->group).ranks.size(), who);
  }

  const Program& p_;
  std::vector<int> pc_;
  std::vector<std::vector<bool>> done_, posted_;
  std::vector<bool> queued_;
  std::deque<int> queue_;
  std::map<std::tuple<int, int, int>, Channel> channels_;
  std::map<std::pair<int, GroupId>, int> instance_of_;
  std::map<GroupId, std::vector<Instance>> instances_;
};

}  // namespace

void check_deadlock(const Program& p, Problems& problems) {
  Execution e(p);
  e.run();
  e.report(problems);
}

}  // namespace geotrain::detail
