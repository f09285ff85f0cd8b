#include "sim/compare/attribution.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "sim/compare/error_stats.hpp"

namespace geotrain::compare {

namespace {

using Key3 = std::tuple<int, int, int>;  // iteration, a, b

// Row indices sorted by (iteration, rank, op): program order on every rank.
std::vector<std::size_t> program_order(const std::vector<results::OpRecord>& rows) {
  std::vector<std::size_t> idx(rows.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(rows[a].iteration, rows[a].rank, rows[a].op) <
           std::tie(rows[b].iteration, rows[b].rank, rows[b].op);
  });
  return idx;
}

double clamp_wait(double partner_start, const results::OpRecord& r) {
  return std::clamp(partner_start - r.start_s, 0.0, std::max(r.duration_s(), 0.0));
}

}  // namespace

std::vector<double> waiting_of_ops(const std::vector<results::OpRecord>& rows) {
  const auto order = program_order(rows);
  // k-th send src->dst and k-th recv at dst from src of an iteration are one message.
  std::map<Key3, std::vector<std::size_t>> sends, recvs;
  // k-th collective of a rank on a group in an iteration is one instance across the group.
  std::map<std::pair<int, std::string>, std::map<int, int>> seq;  // (it, group) -> rank -> count
  std::map<std::tuple<int, std::string, int>, double> last_entry;
  std::vector<int> instance(rows.size(), -1);
  for (std::size_t i : order) {
    const results::OpRecord& r = rows[i];
    if (r.type == results::OpType::send) sends[{r.iteration, r.rank, r.peer}].push_back(i);
    if (r.type == results::OpType::recv) recvs[{r.iteration, r.peer, r.rank}].push_back(i);
    if (r.type == results::OpType::collective) {
      const int k = seq[{r.iteration, r.group}][r.rank]++;
      instance[i] = k;
      auto [it, fresh] = last_entry.try_emplace({r.iteration, r.group, k}, r.start_s);
      if (!fresh) it->second = std::max(it->second, r.start_s);
    }
  }
  std::vector<double> wait(rows.size(), 0.0);
  for (const auto& [key, s] : sends) {
    auto it = recvs.find(key);
    if (it == recvs.end()) continue;
    const auto& v = it->second;
    for (std::size_t k = 0; k < std::min(s.size(), v.size()); ++k) {
      const results::OpRecord& send = rows[s[k]];
      const results::OpRecord& recv = rows[v[k]];
      if (!recv.nonblocking) wait[v[k]] = clamp_wait(send.start_s, recv);
      if (!send.nonblocking) wait[s[k]] = clamp_wait(recv.start_s, send);
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (instance[i] >= 0 && !rows[i].nonblocking)
      wait[i] = clamp_wait(last_entry.at({rows[i].iteration, rows[i].group, instance[i]}), rows[i]);
  return wait;
}

Split attribute(const std::vector<results::OpRecord>& rows, const std::vector<int>& iterations,
                double iteration_time_s) {
  const std::set<int> wanted(iterations.begin(), iterations.end());
  const auto wait = waiting_of_ops(rows);
  Split sum;
  std::set<std::pair<int, int>> rank_iterations;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const results::OpRecord& r = rows[i];
    if (!wanted.count(r.iteration)) continue;
    rank_iterations.insert({r.rank, r.iteration});
    if (r.type == results::OpType::compute) {
      sum.compute_s += r.duration_s();
    } else if (!r.nonblocking && r.type != results::OpType::other) {
      sum.waiting_s += wait[i];
      sum.communication_s += r.duration_s() - wait[i];
    }
  }
  const auto n = static_cast<double>(rank_iterations.size());
  if (n == 0) return sum;
  Split mean{sum.compute_s / n, sum.communication_s / n, sum.waiting_s / n, 0};
  mean.other_s = iteration_time_s - mean.compute_s - mean.communication_s - mean.waiting_s;
  return mean;
}

namespace {

struct Samples {
  results::OpRecord first;
  std::vector<double> duration, waiting;
};

std::map<std::pair<int, int>, Samples> collect(const std::vector<results::OpRecord>& rows, const std::vector<int>& iterations) {
  const std::set<int> wanted(iterations.begin(), iterations.end());
  const auto wait = waiting_of_ops(rows);
  std::map<std::pair<int, int>, Samples> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!wanted.count(rows[i].iteration)) continue;
    auto [it, fresh] = out.try_emplace({rows[i].rank, rows[i].op});
    if (fresh) it->second.first = rows[i];
    it->second.duration.push_back(rows[i].duration_s());
    it->second.waiting.push_back(wait[i]);
  }
  return out;
}

}  // namespace

std::vector<OpDiff> match_ops(const std::vector<results::OpRecord>& predicted, const std::vector<int>& predicted_iterations,
                              const std::vector<results::OpRecord>& measured, const std::vector<int>& measured_iterations) {
  const auto p = collect(predicted, predicted_iterations);
  const auto m = collect(measured, measured_iterations);
  std::set<std::pair<int, int>> keys;
  for (const auto& [k, v] : p) keys.insert(k);
  for (const auto& [k, v] : m) keys.insert(k);
  std::vector<OpDiff> out;
  for (const auto& k : keys) {
    OpDiff d;
    d.rank = k.first;
    d.op = k.second;
    const auto pi = p.find(k);
    const auto mi = m.find(k);
    const Samples& any = pi != p.end() ? pi->second : mi->second;
    d.type = any.first.type;
    d.label = any.first.label;
    d.nonblocking = any.first.nonblocking;
    if (pi != p.end()) d.predicted_s = median(pi->second.duration), d.predicted_waiting_s = median(pi->second.waiting);
    if (mi != m.end()) d.measured_s = median(mi->second.duration), d.measured_waiting_s = median(mi->second.waiting);
    d.matched = pi != p.end() && mi != m.end();
    out.push_back(std::move(d));
  }
  return out;
}

std::map<std::string, double> difference_by_kind(const std::vector<OpDiff>& ops) {
  std::map<std::string, double> out;
  for (const auto& d : ops)
    if (d.matched && !d.nonblocking) out[results::to_string(d.type)] += d.predicted_s - d.measured_s;
  return out;
}

}  // namespace geotrain::compare
