#include "sim/engine/bandwidth_profiles.hpp"

#include <fmt/format.h>
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/s4u.hpp>

#include <algorithm>

namespace geotrain::engine {

using Scope = BandwidthSelector::Scope;

void BandwidthProfiles::set_profile(simgrid::s4u::Link* link, const std::vector<DatedFactor>& timeline,
                                    int src, int dst) {
  if (timeline.empty()) return;
  const double base = link->get_bandwidth();
  // A change at 0 becomes the link's own bandwidth: a profile's date-0 event fires only after
  // the actors' first turn, and closed forms evaluated at 0 (aggregated ring) would miss it.
  double initial = base;
  std::string text;
  for (const auto& f : timeline) {
    applied_.push_back({f.at_s, link->get_name(), src, dst, f.factor, base * f.factor});
    if (f.at_s == 0) initial = base * f.factor;
    else text += fmt::format("{:.17g} {:.17g}\n", f.at_s, base * f.factor);
  }
  if (initial != base) link->set_bandwidth(initial);
  if (!text.empty())
    link->set_bandwidth_profile(simgrid::kernel::profile::ProfileBuilder::from_string(
        "bandwidth " + link->get_name(), fmt::format("0 {:.17g}\n", initial) + text, -1));
}

void BandwidthProfiles::pair_link(simgrid::s4u::Link* link, int src, int dst) {
  if (!schedule_.empty()) set_profile(link, schedule_.pair_timeline(src, dst), src, dst);
}

void BandwidthProfiles::nic_link(simgrid::s4u::Link* link, int device) {
  if (schedule_.empty()) return;
  const int region = schedule_.network().region_of(device);
  set_profile(link, schedule_.timeline([&](const BandwidthStep& st) {
                const auto& sel = st.select;
                return sel.scope == Scope::all ||
                       (sel.scope == Scope::devices &&
                        std::binary_search(sel.devices.begin(), sel.devices.end(), device)) ||
                       (sel.scope == Scope::regions && sel.region_a == region && sel.region_b == region);
              }),
              -1, -1);
}

void BandwidthProfiles::wan_link(simgrid::s4u::Link* link, int a, int b) {
  if (schedule_.empty()) return;
  set_profile(link, schedule_.timeline([&](const BandwidthStep& st) {
                const auto& sel = st.select;
                return sel.scope == Scope::all ||
                       (sel.scope == Scope::regions && sel.region_a != sel.region_b &&
                        ((sel.region_a == a && sel.region_b == b) || (sel.region_a == b && sel.region_b == a)));
              }),
              -1, -1);
}

std::vector<std::string> BandwidthProfiles::regions_warnings() const {
  for (const auto& st : schedule_.steps())
    if (st.select.scope == Scope::devices ||
        (st.select.scope == Scope::regions && st.select.region_a == st.select.region_b))
      return {"bandwidth changes by device (or inside one region) scale NIC links on the regions "
              "platform; a NIC also carries its host's WAN flows, which change only where the NIC "
              "becomes their bottleneck (exact on the pairs platform, up to 256 devices)"};
  return {};
}

std::vector<AppliedBandwidthChange> BandwidthProfiles::applied() const {
  auto out = applied_;
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.at_s < b.at_s; });
  return out;
}

}  // namespace geotrain::engine
