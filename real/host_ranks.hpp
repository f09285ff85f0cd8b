#pragma once
// Which ranks each host of a hosts file asks for (`ranks: 3`, `ranks: [0, 5]`, `region: Tokyo`)
// and the assignment that follows: explicit lists and regions first, in file order, then counts
// in file order, each taking the lowest ranks nobody has claimed. Problems (a rank claimed twice,
// a count larger than what is left, ranks on no host) go to Diagnostics, one line each.
#include <string>
#include <vector>

#include "sim/scenario/diagnostics.hpp"

namespace geotrain::real {

struct RankRequest {
  enum class Kind { count, list, region } kind = Kind::count;
  int count = 0;
  std::vector<int> ranks;  // list, or the region's ranks
  std::string key_path;    // "hosts[2].ranks"
  std::string text;        // as written, for messages
  int line = 0;
  bool valid = false;      // false: already reported, take part in nothing
};

// requests[h] is host h's; names[h] and lines[h] name it in messages; hosts_line is the `hosts`
// key's line. Returns host_of_rank (-1 where no host runs the rank).
std::vector<int> assign_ranks(const std::vector<RankRequest>& requests,
                              const std::vector<std::string>& names, const std::vector<int>& lines,
                              int rank_count, int hosts_line, Diagnostics& diag,
                              std::vector<std::vector<int>>& ranks_of_host);

// "0, 1, 5" (at most `shown` numbers, then "... (N in all)").
std::string rank_list(const std::vector<int>& ranks, std::size_t shown = 16);

}  // namespace geotrain::real
