#pragma once
// FNV-1a, 64 bit: a stable, dependency-free fingerprint of a text. The sweep keys each point's
// result by it (resume, merge); it is not a cryptographic hash and need not be: collisions among
// a sweep's few thousand runs are vanishingly unlikely and only cost a recomputation check.
#include <cstdint>
#include <string>
#include <string_view>

namespace geotrain::sweep {

std::uint64_t fnv1a64(std::string_view text);
// 16 lower-case hex digits.
std::string fnv1a64_hex(std::string_view text);

}  // namespace geotrain::sweep
