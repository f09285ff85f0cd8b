#pragma once
// Which planned profile serves which scenario: a key made of what `geotrain profile` measures
// (the model's shape, dtype and optimizer, the device and torch threads, and the scenario's
// distinct Compute ops by kind, stage, layer range and sequences). Two scenarios with the same
// key need the same measurements: one profile serves both (`validate --plan` profiles each key
// once; a 4-worker and a 16-worker DDP case of one model share theirs).
#include <string>

#include "sim/scenario/scenario.hpp"

namespace geotrain::profile {

struct PlannedProfileKey {
  std::string text;  // readable, one fact per line (written beside the profile)
  std::string hash;  // 16 hex digits of FNV-1a 64 over `text`: the profile's file name
};

// `threads` 0: the scenario's emulation.torch_threads. Throws InputError when the scenario's
// Program cannot be built.
PlannedProfileKey planned_profile_key(const Scenario& scenario, const std::string& device, int threads);

}  // namespace geotrain::profile
