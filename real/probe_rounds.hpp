#pragma once
// The order `geotrain real probe` measures host pairs in: rounds of ordered pairs (src, dst) in
// which no host appears twice, so the pairs of a round run at the same time without sharing a
// host's CPU or interface. Every ordered pair appears exactly once. The circle method of a
// round-robin tournament gives n - 1 rounds of unordered pairs (n even; odd n gets a bye), run
// once in each direction: 2 (n - 1) rounds for even n, 2 n for odd n.
#include <utility>
#include <vector>

namespace geotrain::real {

using ProbeRound = std::vector<std::pair<int, int>>;  // (src, dst) host indices

std::vector<ProbeRound> probe_rounds(int hosts);

}  // namespace geotrain::real
