#pragma once
// `geotrain real apply`: a plan (real_plan.hpp) made true on the hosts over ssh.
//  1. Check every host (host_check.hpp) before touching any; every problem of every host is
//     reported at once and nothing changes.
//  2. Pick the delay: --netem yes needs sch_netem everywhere; no uses the delayer; auto uses
//     netem only if EVERY host has it (a netem sender and a delayer receiver would delay a pair
//     twice, or not at all the other way round).
//  3. Host by host: record the state file, then sysctls and shaping (host_scripts.hpp). If a host
//     fails, every host touched so far (that one included) is undone from its state file, and
//     the error names the host.
//  4. Measure every host pair (link_measure.hpp), unless told not to.
#include <string>
#include <vector>

#include "real/link_measure.hpp"
#include "real/real_down.hpp"
#include "real/real_plan.hpp"

namespace geotrain::real {

struct ApplyOptions {
  NetemChoice netem = NetemChoice::auto_detect;
  bool force = false;    // replace a foreign root qdisc
  bool measure = true;
  MeasureOptions measure_options;  // its ssh options are used for everything
};

struct ApplyResult {
  bool netem = false;  // the variant applied
  std::vector<PairMeasure> measures;
};

// plan: made with options.netem (auto: both variants present). Throws Error / HostError.
ApplyResult real_apply(const RealPlan& plan, const HostsFile& hosts, const HostNetwork& net,
                       const ApplyOptions& options, const Say& say);

}  // namespace geotrain::real
