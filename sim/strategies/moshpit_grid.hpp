#pragma once
// Moshpit averaging (Ryabinin et al., arXiv 2103.03239; hivemind's DecentralizedAverager with a
// grid of group keys): the workers sit in the cells of a virtual grid of `dims` dimensions and
// side M (the smallest with M^dims >= workers), placed by a seeded shuffle (hivemind's peers
// draw their grid indices at random). Round k averages within groups along axis k mod dims:
// the workers whose coordinates agree on every other axis. After dims rounds on a full grid
// every worker holds the global average (each axis averages over one coordinate, and the mean
// of means over a product grid is the mean); with empty cells the groups are unequal and the
// average is reached only approximately, as in Moshpit with peers missing.
//
// Groups are fixed per axis, so a Program carries them as ordinary groups whose collectives run
// every dims-th round (IterationRange::every); a worker alone on its line of an axis averages
// with nobody in those rounds.
#include <cstdint>
#include <vector>

namespace geotrain {

struct MoshpitGrid {
  int dims = 0;
  int side = 0;
  // groups[a]: the groups of axis a, each the sorted worker indices of one line of the grid
  // (lines with no worker are left out; lines with one are kept).
  std::vector<std::vector<std::vector<int>>> groups;
};

MoshpitGrid moshpit_grid(int workers, int dims, std::uint64_t seed);

}  // namespace geotrain
