#pragma once
// dynamic.csv of a run with Dynamic ops: what each rank's gossip / partial-reduce op decided at
// run time, one row per rank and execution,
//   rank,step,op,rule,round,members,decided_s
// rule = gossip or partial_reduce; round = the rank's k-th run of that op (0-based); members =
// the ranks that averaged together, ascending, `;`-separated, the rank itself included (a rank a
// gossip round leaves out, or a lone partial-reduce member, lists only itself); decided_s = when
// the rank learnt the decision. The emulator merges its workers' files into this format
// (emu/launch/result_files.cpp), the simulator writes it here, so the two compare row by row.
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace geotrain::results {

inline constexpr const char* kDynamicCsvHeader = "rank,step,op,rule,round,members,decided_s\n";

struct DynamicRow {
  int rank = 0;
  int step = 0;
  int op = 0;  // index in the rank's Program
  std::string rule;
  std::int64_t round = 0;
  // ranks, ascending; shared by the rows of one partial-reduce window (tens of thousands of
  // members each at internet scale: one list per window, not one copy per member)
  std::shared_ptr<const std::vector<int>> members;
  double decided_s = 0;
};

// Rows sorted by (rank, step, op), as the emulator's merge orders them (rank by rank, each in the
// order it ran its ops); decided_s with 9 decimals, as the workers print it.
void write_dynamic_csv(const std::vector<DynamicRow>& rows, std::ostream& out);

// Members listed over all rows: the file holds about 7 bytes per entry (a 32,768-member window
// of 32,768 rows lists 1e9), so writers skip it above a limit and say so.
double dynamic_csv_entries(const std::vector<DynamicRow>& rows);
inline constexpr double kDynamicCsvMaxEntries = 5e7;

}  // namespace geotrain::results
