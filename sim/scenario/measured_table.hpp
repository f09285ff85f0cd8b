#pragma once
// A table of measured links between named regions (scenarios/networks/*.csv; the bundled
// tables, their sources and what the figures mean: scenarios/networks/README.md):
//   src,dst,delay,bandwidth,method,source,date
//   aws:us-east-1,gcp:europe-west4,41.2ms,3.5Gbps,iperf3 64 flows 5 s; ping
//   RTT/2,skyplane@2e3b2c0,2022-01-29
// A row is the directed link src -> dst: one-way delay and bandwidth, each with its unit. The
// header names at least src,dst,delay,bandwidth (in that order); later columns say where a figure
// came from and are kept as text. No quoting: a field holds no comma. Lines starting with '#' and
// empty lines are skipped. A row with src = dst gives the link inside that region.
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/topology/topology.hpp"

namespace geotrain {

struct MeasuredRow {
  std::string src, dst;
  Link link;
  int line = 0;  // 1-based line in the file
};

class MeasuredTable {
 public:
  // Reads `path`; `shown` names the file in messages. Every malformed row adds one line
  // "shown:LINE: column C (name) = 'text': problem" to `problems` (at most 20 lines); a file
  // that cannot be read adds one line too. Rows with problems are left out.
  static MeasuredTable read(const std::string& path, const std::string& shown,
                            std::vector<std::string>& problems);

  const std::string& shown() const { return shown_; }
  std::size_t size() const { return rows_.size(); }
  // Region names in the order of their first appearance.
  const std::vector<std::string>& regions() const { return regions_; }
  bool knows(const std::string& region) const;
  // The row src -> dst, or nullptr.
  const MeasuredRow* find(const std::string& src, const std::string& dst) const;
  // For a pair the table lacks: the reverse row dst -> src if there is one, else the row
  // (a, b) with a != b that minimises dist(src, a) + dist(dst, b), where dist(x, x) = 0 and
  // dist(x, y) is the smaller measured delay between x and y (either direction); first in the
  // file on ties. nullptr when no row has both distances known.
  const MeasuredRow* nearest(const std::string& src, const std::string& dst) const;

 private:
  double distance_s(const std::string& a, const std::string& b) const;
  std::string shown_;
  std::vector<MeasuredRow> rows_;
  std::unordered_map<std::string, std::size_t> index_;  // src + '\n' + dst -> row
  std::vector<std::string> regions_;
};

}  // namespace geotrain
