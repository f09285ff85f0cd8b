#include <catch2/catch.hpp>

#include "sim/common/did_you_mean.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace did_you_mean_test {

using namespace geotrain;

TEST_CASE("edit distance", "[did_you_mean]") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("gpipe", "gpipe") == 0);
  CHECK(edit_distance("dpsgd", "adpsgd") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("closest name is offered only when close", "[did_you_mean]") {
  const std::vector<std::string> names{"gpipe", "ddp-allreduce", "adpsgd"};
  CHECK(closest_name("dpsgd", names) == std::optional<std::string>("adpsgd"));
  CHECK(closest_name("gpip", names) == std::optional<std::string>("gpipe"));
  CHECK_FALSE(closest_name("zzzzzz", names).has_value());
}

}  // namespace did_you_mean_test
