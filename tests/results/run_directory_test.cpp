// Run directories (sim/results/run_directory.hpp): a run never reuses or overwrites another's.
#include "sim/results/run_directory.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "sim/common/error.hpp"
#include "tests/results/tiny_program.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace run_directory_test {

namespace fs = std::filesystem;
using namespace geotrain;

TEST_CASE("claim_run_directory counts up and never reuses a directory", "[results]") {
  const auto root = test::scratch_dir("claim").string();
  CHECK(results::claim_run_directory(root, "s", "sim") == root + "/s/sim/001");
  CHECK(results::claim_run_directory(root, "s", "sim") == root + "/s/sim/002");
  // Each executor counts on its own.
  CHECK(results::claim_run_directory(root, "s", "emu") == root + "/s/emu/001");
  // A directory made by someone else (another process, a deleted run's leftovers) is skipped,
  // even an empty one: the claim is the mkdir.
  fs::create_directory(root + "/s/sim/003");
  CHECK(results::claim_run_directory(root, "s", "sim") == root + "/s/sim/004");
  fs::remove_all(root);
}

TEST_CASE("claim_run_directory refuses a name that leaves the root and creates nothing", "[results]") {
  const auto root = test::scratch_dir("refuse");
  CHECK_THROWS_AS(results::claim_run_directory(root.string(), "../x", "sim"), InputError);
  CHECK(fs::is_empty(root));
  CHECK_FALSE(fs::exists(root.parent_path() / "x"));
  fs::remove_all(root);
}

TEST_CASE("claim_explicit_directory refuses an out directory holding a run", "[results]") {
  const auto root = test::scratch_dir("explicit");
  const auto out = (root / "a" / "b").string();
  CHECK(results::claim_explicit_directory(out) == out);  // created, parents too
  CHECK(fs::is_directory(out));
  CHECK(results::claim_explicit_directory(out) == out);  // empty, or without a run: taken as given
  std::ofstream(out + "/summary.json") << "{}\n";
  CHECK_THROWS_WITH(results::claim_explicit_directory(out),
                    Catch::Contains("already holds a run (summary.json)"));
  CHECK_THROWS_AS(results::claim_explicit_directory(out), InputError);
  std::ifstream in(out + "/summary.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(text == "{}\n");  // the refused run's files are untouched
  fs::remove_all(root);
}

TEST_CASE("claim_directory takes out when given, else the next free id", "[results]") {
  const auto root = test::scratch_dir("either").string();
  CHECK(results::claim_directory(root, "s", "real", "") == root + "/s/real/001");
  CHECK(results::claim_directory(root, "s", "real", root + "/mine") == root + "/mine");
  CHECK_FALSE(fs::exists(root + "/s/real/002"));
  fs::remove_all(root);
}

}  // namespace run_directory_test
