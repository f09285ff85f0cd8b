#pragma once
// Applies network.bandwidth_changes (sim/topology/bandwidth_schedule.hpp, the resolution the
// emulator applies too) as SimGrid bandwidth profiles. The platform builders hand every link to
// this object before sealing it (SimGrid refuses profiles on sealed links); a link whose pairs
// the schedule touches gets a profile of ABSOLUTE bandwidths (in SimGrid 3.32 a profile value
// replaces the link's bandwidth; the doc's "percentages" are outdated): base x factor from each
// change on. SimGrid re-shares running flows at every change, so a transfer slows down or
// speeds up mid-flight, as a re-rated HTB class does in the emulator.
//
// Which links carry a pair:
//  - `pairs` platform: the pair's own link "d<s>>d<t>": exact for every selector.
//  - `regions` platform: every link; the two WAN links of a region pair; for `devices` (and
//    `between: [A, A]`, inside one region) the NICs of the devices concerned. Exact for `every
//    link` and for pairs of different regions; a NIC also carries its host's WAN flows, so
//    scaling it changes those only where the NIC becomes their bottleneck: listed as a warning.
#include <string>
#include <vector>

#include "sim/topology/bandwidth_schedule.hpp"

namespace simgrid::s4u {
class Link;
}

namespace geotrain::engine {

// One link's bandwidth from at_s on (a row of bandwidth_changes.csv).
struct AppliedBandwidthChange {
  double at_s = 0;
  std::string link;
  int src = -1, dst = -1;  // device pair of a `pairs` link; -1 for NICs and WAN links
  double factor = 1;
  double bandwidth_Bps = 0;
};

class BandwidthProfiles {
 public:
  explicit BandwidthProfiles(const BandwidthSchedule& schedule) : schedule_(schedule) {}

  // Each before the link is sealed; `link`'s current bandwidth is the base.
  void pair_link(simgrid::s4u::Link* link, int src, int dst);
  void nic_link(simgrid::s4u::Link* link, int device);  // each direction of a split-duplex NIC
  void wan_link(simgrid::s4u::Link* link, int region_a, int region_b);

  // Approximations the regions platform makes (empty on `pairs`).
  std::vector<std::string> regions_warnings() const;
  // Sorted by time (stable).
  std::vector<AppliedBandwidthChange> applied() const;

 private:
  void set_profile(simgrid::s4u::Link* link, const std::vector<DatedFactor>& timeline, int src, int dst);

  const BandwidthSchedule& schedule_;
  std::vector<AppliedBandwidthChange> applied_;
};

}  // namespace geotrain::engine
