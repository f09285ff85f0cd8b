#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"

#include <filesystem>
#include <fstream>

#include "sim/common/error.hpp"
#include "sim/program/assignment.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace assignment_test {

namespace fs = std::filesystem;
using namespace geotrain;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  const fs::path p = geotrain::test::process_temp_path("geotrain_assignment_" + name) + ".json";
  std::ofstream(p) << text;
  geotrain::test::remove_at_exit(p.string());
  return p.string();
}
std::vector<std::string> problems_of(const std::string& path, int stages, int replicas, int devices) {
  try {
    read_assignment(path, stages, replicas, devices);
  } catch (const InputError& e) {
    return e.problems();
  }
  return {};
}
}  // namespace

TEST_CASE("identity lays pipelines on consecutive devices", "[assignment]") {
  const Assignment a = identity_assignment(4, 2);
  CHECK(a.device(0, 0) == 0);
  CHECK(a.device(0, 3) == 3);
  CHECK(a.device(1, 0) == 4);
  CHECK(a.stage_groups()[1] == std::vector<int>{1, 5});
}

TEST_CASE("random assignment is a seeded permutation", "[assignment]") {
  const Assignment a = random_assignment(8, 8, 7);
  const Assignment b = random_assignment(8, 8, 7);
  const Assignment c = random_assignment(8, 8, 8);
  CHECK(a.device_of == b.device_of);
  CHECK(a.device_of != c.device_of);
  std::vector<int> all;
  for (const auto& row : a.device_of) all.insert(all.end(), row.begin(), row.end());
  std::sort(all.begin(), all.end());
  for (int i = 0; i < 64; ++i) CHECK(all[static_cast<std::size_t>(i)] == i);
}

TEST_CASE("assignment files round-trip", "[assignment]") {
  const Assignment a = random_assignment(3, 2, 1);
  const std::string path = (fs::temp_directory_path() / "geotrain_assignment_roundtrip.json").string();
  write_assignment(path, a);
  CHECK(read_assignment(path, 3, 2, 6).device_of == a.device_of);
  fs::remove(path);
}

TEST_CASE("groups without pipelines: group g is stage g", "[assignment]") {
  const auto path = write_temp("groups_only", R"({"groups": [[3, 1], [0, 2]]})");
  const Assignment a = read_assignment(path, 2, 2, 4);
  CHECK(a.device(0, 0) == 3);
  CHECK(a.device(1, 0) == 1);
  CHECK(a.device(1, 1) == 2);
}

TEST_CASE("bad assignment files are rejected with clear messages", "[assignment][errors]") {
  const auto wrong_count = write_temp("wrong_count", R"({"groups": [[0, 1], [2]]})");
  CHECK(problems_of(wrong_count, 2, 2, 4) ==
        std::vector<std::string>{wrong_count + ": groups[1]: expected 2 device ids, found 1"});
  const auto duplicate = write_temp("duplicate", R"({"groups": [[0, 1], [2, 1]]})");
  CHECK(problems_of(duplicate, 2, 2, 4) ==
        std::vector<std::string>{duplicate + ": groups[1][1] = 1: device listed twice (also in groups[0])"});
  const auto unknown = write_temp("unknown", R"({"groups": [[0, 1], [2, 71]]})");
  CHECK(problems_of(unknown, 2, 2, 4) ==
        std::vector<std::string>{unknown + ": groups[1][1] = 71: no such device (expected 0 to 3)"});
  const auto split = write_temp("split", R"({"groups": [[0, 1], [2, 3]], "pipelines": [[0, 2], [3, 1]]})");
  CHECK(problems_of(split, 2, 2, 4) ==
        std::vector<std::string>{split + ": pipelines[1][0] = 3: not in the same group as pipelines[0][0] "
                                         "(every stage must be one group)",
                                 split + ": pipelines[1][1] = 1: not in the same group as pipelines[0][1] "
                                         "(every stage must be one group)"});
  const auto malformed = write_temp("malformed", R"({"groups": [[0, 1], )");
  REQUIRE(problems_of(malformed, 2, 2, 4).size() == 1);
  CHECK(problems_of(malformed, 2, 2, 4)[0].rfind(malformed + ": malformed JSON", 0) == 0);
  CHECK(problems_of("/nonexistent.json", 2, 2, 4) ==
        std::vector<std::string>{"/nonexistent.json: cannot open assignment file"});
}

}  // namespace assignment_test
