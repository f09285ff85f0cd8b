// Expansion: cartesian order, overrides, stable hashes, and shards that partition the whole; the
// runs of a shard counted without expanding; the runner's first wave (spread_first).
#include "sim/sweep/expansion.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <set>

#include "sim/common/error.hpp"
#include "sim/sweep/fnv1a.hpp"
#include "sim/sweep/sweep_runner.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace expansion_test {

using namespace geotrain;
using namespace geotrain::sweep;

namespace {
SweepSpec spec_3x2x2() {
  return parse_sweep_spec(
      "base: b.yaml\nvary:\n  a.x: [1, 2, 3]\n  b.y: [p, q]\nstrategies: {s1: {name: "
      "ddp-allreduce}, s2: {name: adpsgd}}\n"
      "network_model: tcp\n",
      "spec.yaml");
}
}  // namespace

TEST_CASE("FNV-1a 64 matches its reference values", "[sweep][hash]") {
  CHECK(fnv1a64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a64_hex("foobar") == "85944171f73967e8");
}

TEST_CASE("points are the cartesian product, the first key slowest", "[sweep][expansion]") {
  const auto spec = spec_3x2x2();
  CHECK(point_count(spec) == 6);
  const auto runs = expand(spec, "base text");
  REQUIRE(runs.size() == 12);
  CHECK(runs[0].values == std::vector<std::string>{"1", "p"});
  CHECK(runs[2].values == std::vector<std::string>{"1", "q"});
  CHECK(runs[11].values == std::vector<std::string>{"3", "q"});
  CHECK(runs[3].point == 1);
  CHECK(runs[3].strategy == 1);
  CHECK(runs[3].sets == std::vector<std::string>{"a.x=1", "b.y=q", "simulation.network_model=tcp",
                                                 "strategy={name: adpsgd}"});
  std::set<std::string> hashes;
  for (const auto& r : runs) hashes.insert(r.hash);
  CHECK(hashes.size() == runs.size());
  // The hash is a function of the effective scenario only: the same text gives the same keys,
  // a changed base gives new ones.
  CHECK(expand(spec, "base text")[5].hash == runs[5].hash);
  CHECK(expand(spec, "base text 2")[5].hash != runs[5].hash);
}

TEST_CASE("the union of n shards is the whole sweep, each run once", "[sweep][expansion][shard]") {
  const auto spec = spec_3x2x2();
  const auto whole = expand(spec, "t");
  for (int n : {1, 2, 4, 7}) {
    std::multiset<std::string> joined;
    for (int i = 1; i <= n; ++i)
      for (const auto& r : expand(spec, "t", Shard{i, n})) joined.insert(r.hash);
    std::multiset<std::string> all;
    for (const auto& r : whole) all.insert(r.hash);
    CHECK(joined == all);
  }
}

TEST_CASE("a shard's runs are counted without expanding them", "[sweep][expansion][shard]") {
  const auto spec = spec_3x2x2();
  for (int n : {1, 2, 4, 6, 7}) {
    for (int i = 1; i <= n; ++i) {
      INFO(i << "/" << n);
      const std::size_t runs = expand(spec, "t", Shard{i, n}).size();
      CHECK(shard_run_count(spec, Shard{i, n}) == runs);
      CHECK(shard_point_count(spec, Shard{i, n}) * 2 == runs);
    }
  }
  // 8 keys of 2^10 values each: 2^80 points, saturated instead of wrapped (a wrapped count
  // could pass the run bound).
  std::string text = "base: b.yaml\nvary:\n";
  std::string values = "[";
  for (int v = 0; v < 1024; ++v) values += (v ? ", " : "") + std::to_string(v);
  values += "]";
  for (int k = 0; k < 8; ++k) text += "  k" + std::to_string(k) + ".x: " + values + "\n";
  const auto huge = parse_sweep_spec(text + "strategies: {s: {name: ddp-allreduce}}\n", "h.yaml");
  CHECK(point_count(huge) == std::numeric_limits<std::size_t>::max());
  CHECK(shard_run_count(huge, Shard{2, 3}) > std::size_t{1} << 62);
}

TEST_CASE("the first wave is spread over the runs to do, the rest follows in order",
          "[sweep][expansion]") {
  const std::vector<std::size_t> todo{10, 11, 12, 13, 14, 15, 16};
  CHECK(spread_first(todo, 1) == todo);
  CHECK(spread_first(todo, 2) == std::vector<std::size_t>{10, 16, 11, 12, 13, 14, 15});
  CHECK(spread_first(todo, 3) == std::vector<std::size_t>{10, 13, 16, 11, 12, 14, 15});
  CHECK(spread_first(todo, 7) == todo);
  CHECK(spread_first(todo, 9) == todo);
  CHECK(spread_first({}, 2).empty());
}

TEST_CASE("shards are written i/n", "[sweep][shard]") {
  CHECK(parse_shard("2/4").index == 2);
  CHECK(parse_shard("2/4").count == 4);
  for (const char* bad : {"0/4", "5/4", "2", "a/b", "2/4x", "1/0"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_shard(bad), InputError);
  }
  CHECK_THROWS_WITH(parse_shard("5/4"), Catch::Contains("expected i/n with 1 <= i <= n"));
}

}  // namespace expansion_test
