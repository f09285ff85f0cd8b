#pragma once
// DT-FM's five heterogeneous network cases (NeurIPS 2022, docs/dtfm-cases.md),
// exact for 64 devices and generalized to any device count by the same layout rules:
//   case 1: instances of 8 GPUs (device i on instance i / 8); 100 Gbit/s inside, 3.125 between.
//   case 2: the first half of the devices in 4-GPU spot instances (100 Gbit/s inside), the rest
//           standalone; 1.25 Gbit/s between any two instances.
//   case 3: first half Ohio, second half Virginia (1 ms / 5 Gbit/s inside, 11 ms / 1.12 across).
//   case 4: four US regions in equal consecutive blocks (device i in region i * 4 / N).
//   case 5: eight cities in equal consecutive blocks (device i in city i * 8 / N).
// Delay 0 for cases 1-2. intra_delay_s overrides the same-region delay of cases 4-5 (default 5 ms,
// the scheduler's figure; DT-FM's tc generator used 10 ms).
#include "sim/topology/topology.hpp"

namespace geotrain {

inline constexpr double kDtfmDefaultIntraDelay_s = 5e-3;

Topology make_dtfm_case(int case_id, int devices, double intra_delay_s = kDtfmDefaultIntraDelay_s);

}  // namespace geotrain
