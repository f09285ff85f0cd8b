// Which planned profile serves which scenario (emu/profile/profile_key): cases that need the same
// measurements share a key, cases that need others do not. The codec cases and the parameter
// servers are the ones that found the gaps: an int8 encode and its decode are both `other` ops of
// stage 0 over the whole model, told apart only by their flops, which also grow with the group's
// size; AD-PSGD's averaging and the sharded server's differ by their flops alone.
#include <catch2/catch.hpp>

#include <string>

#include "emu/profile/profile_key.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace planned_profile_key_test {

namespace {

geotrain::profile::PlannedProfileKey key_of(const std::string& validation_case) {
  const auto s = geotrain::load_scenario(
      std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/validation/" + validation_case + ".yaml", {});
  return geotrain::profile::planned_profile_key(s, "cpu", 0);
}

int count_of(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("planned profile key: one key for a strategy's 4, 8 and 16 workers when its ops are alike",
          "[compare][plan]") {
  const auto four = key_of("ddp_ring__case5");
  CHECK(four.hash == key_of("ddp_ring__case5_w8").hash);
  CHECK(four.hash == key_of("ddp_ring__case5_w16").hash);
  CHECK(four.hash.size() == 16);
  CHECK(count_of(four.text, "\nop ") == 3);  // forward, backward, optimizer
  // An `other` op carries its flops: AD-PSGD's gossip averaging and the sharded parameter
  // server's are different work on the same stage and layers, and share no profile.
  const auto adpsgd = key_of("adpsgd__case3");
  CHECK(count_of(adpsgd.text, "op other stage 0 layers [0, 4) sequences 0 flops ") == 1);
  CHECK(adpsgd.hash != key_of("ps_sharded__case3").hash);
  CHECK(adpsgd.hash == key_of("adpsgd__case3_w16").hash);
}

TEST_CASE("planned profile key: a codec's encode and decode are two ops, and their flops follow the group",
          "[compare][plan]") {
  const auto four = key_of("diloco_int8__case5");
  const auto sixteen = key_of("diloco_int8__case5_w16");
  CHECK(count_of(four.text, "op other stage 0 layers [0, 4) sequences 0 flops ") >= 2);
  CHECK(four.hash != sixteen.hash);
  CHECK(four.hash != key_of("diloco_fp4__case5").hash);
  CHECK(key_of("diloco_topk__case5").hash != four.hash);
}

}  // namespace planned_profile_key_test
