#include "sim/program/program_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "sim/common/error.hpp"
#include "sim/program/program_checks.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain {

namespace detail {

void Problems::add(std::string line) {
  if (lines_.size() < kMax)
    lines_.push_back(prefix_ + std::move(line));
  else
    ++dropped_;
}

std::vector<std::string> Problems::lines() const {
  auto out = lines_;
  if (dropped_ > 0) out.push_back(fmt::format("... and {} more problems", dropped_));
  return out;
}

std::string op_where(const Program& p, int rank, int index) {
  const auto& op = p.ranks.at(static_cast<std::size_t>(rank)).at(static_cast<std::size_t>(index));
  return fmt::format("rank {} op {} '{}'", rank, index, op.label);
}

std::string op_summary(const Program& p, const Op& op) {
  if (const auto* s = op.as<SendOp>())
    return fmt::format("send to {} tag {} ({} B)", s->peer, s->tag, s->bytes);
  if (const auto* r = op.as<RecvOp>())
    return fmt::format("recv from {} tag {} ({} B)", r->peer, r->tag, r->bytes);
  if (const auto* c = op.as<CollectiveOp>()) {
    const bool known = c->group >= 0 && static_cast<std::size_t>(c->group) < p.groups.size();
    return fmt::format("{} {} on group {} '{}' tag {} ({} B)", to_string(c->kind),
                       to_string(c->algorithm), c->group, known ? p.group(c->group).name : "?",
                       c->tag, c->bytes);
  }
  if (const auto* d = op.as<DynamicOp>())
    return fmt::format("{} on group {} tag {} ({} B)", to_string(d->rule), d->group, d->tag,
                       d->bytes);
  if (const auto* w = op.as<WaitOp>()) return fmt::format("wait for {} ops", w->ops.size());
  return fmt::format("{} compute", to_string(op.as<ComputeOp>()->kind));
}

}  // namespace detail

namespace {

using detail::op_where;
using detail::Problems;

bool bad_bytes(double b) {
  return !std::isfinite(b) || b < 0;
}
// Each group's ranks sorted once: a group of N members is asked about N times (each member's
// ops), which a linear scan makes O(N^2) (a minute for 65,536 data-parallel ranks).
class Membership {
 public:
  explicit Membership(const Program& p) {
    for (const Group& g : p.groups) {
      auto& s = sorted_.emplace_back(g.ranks);
      std::sort(s.begin(), s.end());
    }
  }
  bool contains(GroupId g, int rank) const {
    const auto& s = sorted_[static_cast<std::size_t>(g)];
    return std::binary_search(s.begin(), s.end(), rank);
  }

 private:
  std::vector<std::vector<int>> sorted_;
};
bool known_group(const Program& p, GroupId g) {
  return g >= 0 && static_cast<std::size_t>(g) < p.groups.size();
}

void check_shape(const Program& p, Problems& out) {
  const int n = static_cast<int>(p.ranks.size());
  if (p.world_size != n)
    out.add(fmt::format("world_size is {} but the program has {} ranks", p.world_size, n));
  if (p.device_of_rank.size() != p.ranks.size())
    out.add(fmt::format("device_of_rank has {} entries for {} ranks", p.device_of_rank.size(), n));
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    const Group& group = p.groups[g];
    if (group.id != static_cast<int>(g))
      out.add(fmt::format("groups[{}] has id {} (expected {})", g, group.id, g));
    if (group.ranks.empty()) out.add(fmt::format("group {} '{}' has no ranks", g, group.name));
    if (!group.part_fractions.empty()) {
      double sum = 0;
      bool negative = false;
      for (double f : group.part_fractions) sum += f, negative = negative || !(f >= 0);
      if (group.part_fractions.size() != group.ranks.size() || negative || std::abs(sum - 1) > 1e-9)
        out.add(fmt::format("group {} '{}': {} part fractions summing to {} for {} ranks (expected "
                            "one non-negative fraction per rank, summing to 1)",
                            g, group.name, group.part_fractions.size(), sum, group.ranks.size()));
    }
    std::vector<bool> seen(p.ranks.size(), false);
    for (int r : group.ranks) {
      if (r < 0 || r >= n)
        out.add(
            fmt::format("group {} '{}' names rank {} (expected 0 to {})", g, group.name, r, n - 1));
      else if (seen[static_cast<std::size_t>(r)])
        out.add(fmt::format("group {} '{}' lists rank {} twice", g, group.name, r));
      else
        seen[static_cast<std::size_t>(r)] = true;
    }
  }
}

// The algorithms collective_schedule implements, so no executor meets one it cannot run.
std::string algorithm_problem(const CollectiveOp& c, std::size_t members) {
  using A = CollectiveAlgorithm;
  using K = CollectiveKind;
  if (members <= 1 || c.algorithm == A::library) return "";
  if (c.algorithm == A::butterfly)
    return c.kind == K::allreduce || c.kind == K::reduce_scatter || c.kind == K::allgather
               ? ""
               : "a butterfly is an all-reduce, reduce-scatter or all-gather";
  switch (c.kind) {
    case K::allreduce:
      if (c.algorithm == A::halving_doubling && (members & (members - 1)) != 0)
        return fmt::format("halving-doubling needs a power-of-2 group, this one has {} ranks",
                           members);
      return "";
    case K::reduce_scatter:
    case K::allgather:
      return c.algorithm == A::ring || c.algorithm == A::direct ? "" : "expected ring or direct";
    default:
      return c.algorithm == A::direct || c.algorithm == A::tree ? "" : "expected direct or tree";
  }
}

void check_collective(const Program& p, const Membership& members, int r, int i,
                      const CollectiveOp& c, Problems& out) {
  if (!known_group(p, c.group)) {
    out.add(fmt::format("{}: collective on unknown group {}", op_where(p, r, i), c.group));
    return;
  }
  const Group& g = p.group(c.group);
  if (!members.contains(c.group, r))
    out.add(
        fmt::format("{}: rank {} is not in group {} '{}'", op_where(p, r, i), r, c.group, g.name));
  const bool rooted = c.kind == CollectiveKind::broadcast || c.kind == CollectiveKind::gather ||
                      c.kind == CollectiveKind::scatter || c.kind == CollectiveKind::reduce;
  if ((rooted || c.algorithm == CollectiveAlgorithm::direct ||
       c.algorithm == CollectiveAlgorithm::tree) &&
      !members.contains(c.group, c.root))
    out.add(fmt::format("{}: root {} is not in group {} '{}'", op_where(p, r, i), c.root, c.group,
                        g.name));
  if (auto why = algorithm_problem(c, g.ranks.size()); !why.empty())
    out.add(fmt::format("{}: {} with algorithm {}: {}", op_where(p, r, i), to_string(c.kind),
                        to_string(c.algorithm), why));
}

void check_op(const Program& p, const Membership& members, int r, int i, std::vector<bool>& waited,
              Problems& out) {
  const int n = static_cast<int>(p.ranks.size());
  const Op& op = p.ranks[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
  const auto peer_ok = [&](int peer, double bytes) {
    if (peer < 0 || peer >= n || peer == r)
      out.add(fmt::format("{}: peer {} (expected another rank, 0 to {})", op_where(p, r, i), peer,
                          n - 1));
    if (bad_bytes(bytes))
      out.add(fmt::format("{}: bytes = {} (expected >= 0)", op_where(p, r, i), bytes));
  };
  if (const auto* c = op.as<ComputeOp>()) {
    if (bad_bytes(c->flops) || bad_bytes(c->memory_bytes) || bad_bytes(c->sequences))
      out.add(fmt::format("{}: negative or non-finite flops/bytes/sequences", op_where(p, r, i)));
  } else if (const auto* s = op.as<SendOp>()) {
    peer_ok(s->peer, s->bytes);
    check_transfer_payload(p, r, i, s->payload, s->micro_batch, out);
  } else if (const auto* v = op.as<RecvOp>()) {
    peer_ok(v->peer, v->bytes);
    check_transfer_payload(p, r, i, v->payload, v->micro_batch, out);
  } else if (const auto* col = op.as<CollectiveOp>()) {
    if (bad_bytes(col->bytes))
      out.add(fmt::format("{}: bytes = {} (expected >= 0)", op_where(p, r, i), col->bytes));
    check_collective(p, members, r, i, *col, out);
    check_averaged_payload(p, r, i, col->payload, true, out);
    detail::check_compression(p, r, i, *col, out);
  } else if (const auto* d = op.as<DynamicOp>()) {
    if (!known_group(p, d->group) || !members.contains(d->group, r))
      out.add(fmt::format("{}: rank {} is not in group {}", op_where(p, r, i), r, d->group));
    check_averaged_payload(p, r, i, d->payload, false, out);
  } else if (const auto* w = op.as<WaitOp>()) {
    for (int j : w->ops) {
      const auto& ops = p.ranks[static_cast<std::size_t>(r)];
      if (j < 0 || j >= i)
        out.add(fmt::format("{}: waits for op {} (expected an earlier op, 0 to {})",
                            op_where(p, r, i), j, i - 1));
      else if (!ops[static_cast<std::size_t>(j)].nonblocking)
        out.add(fmt::format("{}: waits for op {} '{}', which is not nonblocking", op_where(p, r, i),
                            j, ops[static_cast<std::size_t>(j)].label));
      else
        waited[static_cast<std::size_t>(j)] = true;
    }
  }
  const bool can_overlap =
      op.as<SendOp>() || op.as<RecvOp>() || op.as<CollectiveOp>() || op.as<DynamicOp>();
  if (op.nonblocking && !can_overlap)
    out.add(fmt::format("{}: only send, recv, collective and dynamic ops can be nonblocking",
                        op_where(p, r, i)));
}

void check_ops(const Program& p, Problems& out) {
  const Membership members(p);
  for (int r = 0; r < static_cast<int>(p.ranks.size()); ++r) {
    const auto& ops = p.ranks[static_cast<std::size_t>(r)];
    std::vector<bool> waited(ops.size(), false);
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) check_op(p, members, r, i, waited, out);
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].nonblocking && !waited[i])
        out.add(fmt::format("{}: nonblocking but no later Wait names it",
                            op_where(p, r, static_cast<int>(i))));
  }
}

struct Posted {
  int rank, index;
  double bytes;
  Payload payload;
  int micro_batch;
};

void check_matching(const Program& p, Problems& out) {
  std::map<std::tuple<int, int, int>, std::vector<Posted>> sends, recvs;
  for (int r = 0; r < static_cast<int>(p.ranks.size()); ++r)
    for (int i = 0; i < static_cast<int>(p.ranks[static_cast<std::size_t>(r)].size()); ++i) {
      const Op& op = p.ranks[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
      if (const auto* s = op.as<SendOp>())
        sends[{r, s->peer, s->tag}].push_back({r, i, s->bytes, s->payload, s->micro_batch});
      if (const auto* v = op.as<RecvOp>())
        recvs[{v->peer, r, v->tag}].push_back({r, i, v->bytes, v->payload, v->micro_batch});
    }
  for (const auto& [key, list] : sends) {
    const auto it = recvs.find(key);
    const std::size_t matched = it == recvs.end() ? 0 : std::min(list.size(), it->second.size());
    for (std::size_t k = 0; k < matched; ++k) {
      const Posted& snd = list[k];
      const Posted& rcv = it->second[k];
      if (snd.bytes != rcv.bytes)
        out.add(fmt::format("{} sends {} B but {} receives {} B", op_where(p, snd.rank, snd.index),
                            snd.bytes, op_where(p, rcv.rank, rcv.index), rcv.bytes));
      if (snd.payload != rcv.payload || snd.micro_batch != rcv.micro_batch)
        out.add(fmt::format("{} sends {} of micro-batch {} but {} receives {} of micro-batch {}",
                            op_where(p, snd.rank, snd.index), json_name(snd.payload),
                            snd.micro_batch, op_where(p, rcv.rank, rcv.index),
                            json_name(rcv.payload), rcv.micro_batch));
    }
    for (std::size_t k = matched; k < list.size(); ++k)
      out.add(fmt::format("{}: send to {} tag {} has no matching recv",
                          op_where(p, list[k].rank, list[k].index), std::get<1>(key),
                          std::get<2>(key)));
  }
  for (const auto& [key, list] : recvs) {
    const auto it = sends.find(key);
    const std::size_t matched = it == sends.end() ? 0 : std::min(list.size(), it->second.size());
    for (std::size_t k = matched; k < list.size(); ++k)
      out.add(fmt::format("{}: recv from {} tag {} has no matching send",
                          op_where(p, list[k].rank, list[k].index), std::get<0>(key),
                          std::get<2>(key)));
  }
}

bool same_collective(const Op& a, const Op& b) {
  const auto* x = a.as<CollectiveOp>();
  const auto* y = b.as<CollectiveOp>();
  if (x && y)
    return x->kind == y->kind && x->bytes == y->bytes && x->algorithm == y->algorithm &&
           x->root == y->root && x->tag == y->tag && x->payload == y->payload &&
           x->compression == y->compression;
  const auto* u = a.as<DynamicOp>();
  const auto* v = b.as<DynamicOp>();
  return u && v && u->rule.index() == v->rule.index() && u->bytes == v->bytes && u->tag == v->tag &&
         u->payload == v->payload;
}

// Every member of a group must enter the same collectives in the same order.
void check_group_orders(const Program& p, Problems& out) {
  std::map<GroupId, std::map<int, std::vector<int>>> entered;  // group -> rank -> op indices
  for (int r = 0; r < static_cast<int>(p.ranks.size()); ++r)
    for (int i = 0; i < static_cast<int>(p.ranks[static_cast<std::size_t>(r)].size()); ++i) {
      const Op& op = p.ranks[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)];
      if (const auto* c = op.as<CollectiveOp>()) entered[c->group][r].push_back(i);
      if (const auto* d = op.as<DynamicOp>()) entered[d->group][r].push_back(i);
    }
  for (auto& [g, by_rank] : entered) {
    if (!known_group(p, g)) continue;
    const Group& group = p.group(g);
    const int first = group.ranks.front();
    const auto& ref = by_rank[first];
    for (int r : group.ranks) {
      const auto& mine = by_rank[r];
      if (mine.size() != ref.size()) {
        out.add(fmt::format("group {} '{}': rank {} enters {} collectives, rank {} enters {}", g,
                            group.name, r, mine.size(), first, ref.size()));
        continue;
      }
      for (std::size_t k = 0; k < mine.size(); ++k) {
        const Op& a = p.ranks[static_cast<std::size_t>(first)][static_cast<std::size_t>(ref[k])];
        const Op& b = p.ranks[static_cast<std::size_t>(r)][static_cast<std::size_t>(mine[k])];
        if (!same_collective(a, b)) {
          out.add(fmt::format("group {} '{}': collective #{} differs: {} is {}, {} is {}", g,
                              group.name, k, op_where(p, first, ref[k]), detail::op_summary(p, a),
                              op_where(p, r, mine[k]), detail::op_summary(p, b)));
          break;
        }
      }
    }
  }
}

void check_iteration(const Program& p, Problems& out) {
  check_shape(p, out);
  check_ops(p, out);
  check_matching(p, out);
  check_group_orders(p, out);
}

void check_ranges(const Program& p, Problems& out) {
  int period = 1;  // the one period of the Program's periodic ranges (program_epochs needs one)
  for (int r = 0; r < static_cast<int>(p.ranks.size()); ++r)
    for (int i = 0; i < static_cast<int>(p.ranks[static_cast<std::size_t>(r)].size()); ++i)
      for (const auto& range : p.ranks[static_cast<std::size_t>(r)][static_cast<std::size_t>(i)].iterations) {
        if (range.begin < 0 || (range.end >= 0 && range.end <= range.begin))
          out.add(fmt::format("{}: iterations [{}, {}) (expected 0 <= begin < end, or end -1)",
                              op_where(p, r, i), range.begin, range.end));
        if (range.every < 1 || range.every > 1024)
          out.add(fmt::format("{}: iterations [{}, {}) every {} (expected every 1 to 1024)",
                              op_where(p, r, i), range.begin, range.end, range.every));
        else if (range.every > 1 && period > 1 && range.every != period)
          out.add(fmt::format("{}: iterations every {} where other ops repeat every {} (expected one "
                              "period per Program)", op_where(p, r, i), range.every, period));
        else if (range.every > 1)
          period = range.every;
      }
}

// Which ops are active in `iteration`, rank by rank: epochs with equal masks are checked once.
std::vector<std::vector<bool>> active_mask(const Program& p, int iteration) {
  std::vector<std::vector<bool>> mask;
  for (const auto& ops : p.ranks) {
    mask.emplace_back();
    for (const auto& op : ops) mask.back().push_back(op.active_in(iteration));
  }
  return mask;
}

// A Program whose ops have iteration ranges is checked epoch by epoch (program_epochs), as the
// Program of each epoch's first iteration; problems name the epoch.
void check_epochs(const Program& p, Problems& out) {
  check_ranges(p, out);
  if (!out.empty()) return;
  const auto epochs = program_epochs(p);
  std::vector<std::vector<std::vector<bool>>> checked;
  for (std::size_t e = 0; e < epochs.size(); ++e) {
    auto mask = active_mask(p, epochs[e]);
    if (std::find(checked.begin(), checked.end(), mask) != checked.end()) continue;
    checked.push_back(std::move(mask));
    const Program q = program_in_iteration(p, epochs[e]);
    const int end = e + 1 < epochs.size() ? epochs[e + 1] : -1;
    out.set_prefix(end < 0                  ? fmt::format("iterations {} onwards: ", epochs[e])
                   : end == epochs[e] + 1   ? fmt::format("iteration {}: ", epochs[e])
                                            : fmt::format("iterations {} to {}: ", epochs[e], end - 1));
    Problems mine;
    check_iteration(q, mine);
    if (mine.empty()) detail::check_deadlock(q, mine);
    for (auto& line : mine.lines()) out.add(std::move(line));
  }
  out.set_prefix("");
}

}  // namespace

std::vector<std::string> program_problems(const Program& p) {
  Problems out;
  if (has_iteration_ranges(p)) {
    check_epochs(p, out);
    return out.lines();
  }
  check_iteration(p, out);
  // The abstract execution assumes a well-formed Program; on a broken one it only adds noise.
  if (out.empty()) detail::check_deadlock(p, out);
  return out.lines();
}

void validate_program(const Program& p) {
  const auto problems = program_problems(p);
  if (problems.empty()) return;
  std::string text =
      fmt::format("invalid program '{}' ({} problems):", p.strategy, problems.size());
  for (const auto& line : problems) text += "\n  " + line;
  throw Error(text);
}

}  // namespace geotrain
