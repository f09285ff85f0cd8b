#pragma once
// What the rig tests share: the skip rule, the three hosts of scenarios/real/netns_3hosts.yaml
// and the paths of the build and the scenario they run.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/real_rig/ssh_rig.hpp"

namespace geotrain::test {

// True when the rig can run; else a WARN saying why (the test then passes without checks). Under
// CI (CI=true, as root, with scripts/install-deps.sh run) the rig must run: a missing tool fails
// the test instead of letting the real/ tests pass without checking anything.
inline bool rig_ready() {
  const std::string why = rig_unavailable();
  if (why.empty()) return true;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string(ci) == "true") FAIL("the ssh rig cannot run under CI: " << why);
  WARN("skipped: " << why);
  return false;
}

inline std::vector<RigHost> three_hosts() {
  return {{"ns-virginia", "Virginia"}, {"ns-ohio", "Ohio"}, {"ns-london", "London"}};
}

inline std::string build_dir() {
  const std::string bin = GEOTRAIN_BINARY;
  return bin.substr(0, bin.rfind('/'));
}

inline std::string diloco3() { return std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/diloco_timeout_3.yaml"; }

}  // namespace geotrain::test
