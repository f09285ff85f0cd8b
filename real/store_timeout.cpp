#include "real/store_timeout.hpp"

#include <algorithm>
#include <cmath>

namespace geotrain::real {

double modelled_rendezvous_and_transfer_s(const StoreTimeoutInputs& in) {
  const int peers = std::max(0, in.world_size - 1);
  const double rendezvous = (kRendezvousRoundTrips + 2.0 * peers) * in.max_round_trip_s;
  const double transfer = (in.min_bandwidth_Bps > 0 ? 2 * in.largest_message_bytes / in.min_bandwidth_Bps : 0) +
                          peers * in.max_round_trip_s;
  return rendezvous + transfer;
}

double store_timeout_s(const StoreTimeoutInputs& in) {
  return std::ceil(kStoreTimeoutFloor_s + kStoreTimeoutMargin * modelled_rendezvous_and_transfer_s(in));
}

}  // namespace geotrain::real
