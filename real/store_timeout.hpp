#pragma once
// How long a worker on a real cluster waits for the store and for a peer (geotrain-worker
// --timeout) before it gives up: derived from the scenario's network instead of a fixed default,
// so a 250 ms, 100 Mbit/s scenario does not time out where a LAN one would be fine.
//
//   modelled = (kRendezvousRoundTrips + 3 (N - 1)) x RTT + 2 x B / BW
//   timeout  = ceil(kStoreTimeoutFloor_s + kStoreTimeoutMargin x modelled)
//
// RTT: the scenario's largest round trip (2 x its largest one-way delay). Rendezvous: connecting
// to the store and its first set/get take a few round trips, then Gloo connects the full mesh,
// each peer an address lookup in the store and a TCP connect (2 round trips), one after another
// in the worst case: 2 (N - 1). A ring collective of the largest message B over the slowest link
// BW sends 2 (N-1)/N x B <= 2 B through it and waits 2 (N - 1) one-way delays = (N - 1) RTT.
// The floor covers what the network model does not: process start-up and a peer's compute.
namespace geotrain::real {

inline constexpr double kStoreTimeoutFloor_s = 60;  // the emulator's default wait
inline constexpr double kStoreTimeoutMargin = 3;
inline constexpr int kRendezvousRoundTrips = 4;

struct StoreTimeoutInputs {
  double max_round_trip_s = 0;
  double largest_message_bytes = 0;
  double min_bandwidth_Bps = 0;  // 0: no link (a single rank), no transfer term
  int world_size = 1;
};

// The modelled part (seconds, before margin and floor).
double modelled_rendezvous_and_transfer_s(const StoreTimeoutInputs& in);
// Whole seconds.
double store_timeout_s(const StoreTimeoutInputs& in);

}  // namespace geotrain::real
