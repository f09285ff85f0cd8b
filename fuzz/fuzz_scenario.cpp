// libFuzzer target: the bytes are a scenario's YAML text (scenario_check.hpp says what is checked
// and what counts as a finding). Run it with scripts/sanitize.sh fuzz; see fuzz/README.md.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/scenario_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  geotrain::fuzz::check_scenario_text(text, GEOTRAIN_FUZZ_BASE_DIR);
  return 0;
}
