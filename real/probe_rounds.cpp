#include "real/probe_rounds.hpp"

#include <algorithm>

namespace geotrain::real {

std::vector<ProbeRound> probe_rounds(int hosts) {
  std::vector<ProbeRound> forward;
  if (hosts < 2) return forward;
  const int m = hosts % 2 == 0 ? hosts : hosts + 1;  // m - 1 = the bye when hosts is odd
  std::vector<int> seat(static_cast<std::size_t>(m));
  for (int i = 0; i < m; ++i) seat[static_cast<std::size_t>(i)] = i;
  for (int r = 0; r < m - 1; ++r) {
    ProbeRound round;
    for (int i = 0; i < m / 2; ++i) {
      int a = seat[static_cast<std::size_t>(i)], b = seat[static_cast<std::size_t>(m - 1 - i)];
      if (a >= hosts || b >= hosts) continue;
      // Alternate the direction so that the first pass is not always "lower index sends".
      if ((r + i) % 2 == 1) std::swap(a, b);
      round.emplace_back(a, b);
    }
    forward.push_back(std::move(round));
    std::rotate(seat.begin() + 1, seat.end() - 1, seat.end());  // seat 0 stays, the others turn
  }
  std::vector<ProbeRound> out = forward;
  for (const auto& round : forward) {
    ProbeRound back;
    for (const auto& [a, b] : round) back.emplace_back(b, a);
    out.push_back(std::move(back));
  }
  return out;
}

}  // namespace geotrain::real
