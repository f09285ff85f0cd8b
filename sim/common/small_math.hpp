#pragma once
// Helpers too small for a file of their own, that several sources had each defined for
// themselves (one definition now, which a unity build needs: docs/building.md).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace geotrain {

// a mod n in [0, n), for negative a too: ring positions counted backwards.
inline int mod(int a, int n) { return ((a % n) + n) % n; }

// An int index (device, stage, class) as a vector subscript.
inline std::size_t at(int i) { return static_cast<std::size_t>(i); }

inline constexpr double kInf = std::numeric_limits<double>::infinity();

// Equal to 1 part in 1e9: profile and model figures that went through text and back.
inline bool same(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }

}  // namespace geotrain
