// The worker's store/peer timeout against its closed form (real/store_timeout.hpp):
//   ceil(60 + 3 x ((4 + 3 (N - 1)) x RTT + 2 x B / BW)).
#include <catch2/catch.hpp>

#include "real/store_timeout.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace store_timeout_test {

using namespace geotrain::real;

TEST_CASE("store timeout follows its closed form", "[real][timeout]") {
  // 8 ranks, 200 ms RTT, a 100 MB message over 100 Mbit/s (12.5 MB/s):
  // (4 + 21) x 0.2 = 5 s of round trips, 2 x 100e6 / 12.5e6 = 16 s of transfer.
  const StoreTimeoutInputs in{0.2, 100e6, 12.5e6, 8};
  CHECK(modelled_rendezvous_and_transfer_s(in) == Approx(21.0));
  CHECK(store_timeout_s(in) == 60 + 63);
  // A LAN: 0.2 ms RTT, 1 MB at 10 Gbit/s, 2 ranks: (4 + 3) x 0.0002 + 2e6 / 1.25e9 = 0.0030 s.
  const StoreTimeoutInputs lan{0.0002, 1e6, 1.25e9, 2};
  CHECK(modelled_rendezvous_and_transfer_s(lan) == Approx(0.003));
  CHECK(store_timeout_s(lan) == 61);  // ceil(60.009)
}

TEST_CASE("store timeout grows with delay, message size and world size", "[real][timeout]") {
  const StoreTimeoutInputs base{0.1, 10e6, 1e6, 4};
  StoreTimeoutInputs longer = base, larger = base, wider = base;
  longer.max_round_trip_s = 0.5;
  larger.largest_message_bytes = 100e6;
  wider.world_size = 64;
  CHECK(store_timeout_s(longer) > store_timeout_s(base));
  CHECK(store_timeout_s(larger) > store_timeout_s(base));
  CHECK(store_timeout_s(wider) > store_timeout_s(base));
}

TEST_CASE("a single rank has only the floor and its own rendezvous", "[real][timeout]") {
  const StoreTimeoutInputs one{0, 1e6, 0, 1};
  CHECK(modelled_rendezvous_and_transfer_s(one) == 0);
  CHECK(store_timeout_s(one) == kStoreTimeoutFloor_s);
}

}  // namespace store_timeout_test
