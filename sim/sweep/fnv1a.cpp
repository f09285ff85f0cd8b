#include "sim/sweep/fnv1a.hpp"

#include <fmt/format.h>

namespace geotrain::sweep {

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;  // FNV prime
  }
  return h;
}

std::string fnv1a64_hex(std::string_view text) {
  return fmt::format("{:016x}", fnv1a64(text));
}

}  // namespace geotrain::sweep
