#include "real/host_ranks.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace geotrain::real {

std::string rank_list(const std::vector<int>& ranks, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size() && i < shown; ++i) out += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > shown) out += fmt::format(", ... ({} in all)", ranks.size());
  return out;
}

std::vector<int> assign_ranks(const std::vector<RankRequest>& requests,
                              const std::vector<std::string>& names, const std::vector<int>& lines,
                              int rank_count, int hosts_line, Diagnostics& diag,
                              std::vector<std::vector<int>>& ranks_of_host) {
  std::vector<int> host_of_rank(static_cast<std::size_t>(rank_count), -1);
  ranks_of_host.assign(requests.size(), {});
  using Kind = RankRequest::Kind;
  for (std::size_t h = 0; h < requests.size(); ++h) {
    const RankRequest& q = requests[h];
    if (!q.valid || q.kind == Kind::count) continue;
    for (int r : q.ranks) {
      int& owner = host_of_rank[static_cast<std::size_t>(r)];
      if (owner >= 0) {
        diag.error(q.line, q.key_path,
                   fmt::format("rank {} already runs on host '{}' (line {}; expected each rank on one host)",
                               r, names[static_cast<std::size_t>(owner)], lines[static_cast<std::size_t>(owner)]));
        continue;
      }
      owner = static_cast<int>(h);
      ranks_of_host[h].push_back(r);
    }
  }
  int next = 0;
  for (std::size_t h = 0; h < requests.size(); ++h) {
    const RankRequest& q = requests[h];
    if (!q.valid || q.kind != Kind::count) continue;
    std::vector<int> taken;
    for (; next < rank_count && static_cast<int>(taken.size()) < q.count; ++next)
      if (host_of_rank[static_cast<std::size_t>(next)] < 0) taken.push_back(next);
    if (static_cast<int>(taken.size()) < q.count) {
      diag.error(q.line, q.key_path, q.text,
                 fmt::format("asks for {} ranks but only {} are left after the hosts before it "
                             "(expected at most {}; the scenario has {} ranks, 0 ... {})",
                             q.count, taken.size(), taken.size(), rank_count, rank_count - 1));
      continue;
    }
    for (int r : taken) host_of_rank[static_cast<std::size_t>(r)] = static_cast<int>(h);
    ranks_of_host[h] = taken;
  }
  bool all_valid = true;
  for (const auto& q : requests) all_valid = all_valid && q.valid;
  std::vector<int> uncovered;
  for (int r = 0; r < rank_count; ++r)
    if (host_of_rank[static_cast<std::size_t>(r)] < 0) uncovered.push_back(r);
  // After an invalid request the gap is that request's, already reported.
  if (all_valid && diag.ok() && !uncovered.empty())
    diag.error(hosts_line, "hosts",
               fmt::format("{} {} {} on no host (expected every one of the scenario's {} ranks, 0 ... {}, "
                           "on exactly one host)",
                           uncovered.size() == 1 ? "rank" : "ranks", rank_list(uncovered),
                           uncovered.size() == 1 ? "runs" : "run", rank_count, rank_count - 1));
  for (auto& ranks : ranks_of_host) std::sort(ranks.begin(), ranks.end());
  return host_of_rank;
}

}  // namespace geotrain::real
