// Every file in tests/bad_hosts/ is refused by `geotrain real plan` with exactly the lines of its
// .expected file and exit code 2 (the real binary, as a user runs it, from the repository root).
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "tests/support/shell.hpp"
#include "tests/support/text_files.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace bad_hosts_test {

namespace fs = std::filesystem;
using geotrain::test::read_lines;
using geotrain::test::sh;

namespace {

// Every bad hosts file is checked against this scenario (8 ranks, regions named after cities).
constexpr const char* kScenario = "scenarios/emu/case5_8ranks.yaml";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t nl = std::min(text.find('\n', i), text.size());
    out.push_back(text.substr(i, nl - i));
    i = nl + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("bad hosts files are refused with their pinned messages and exit code 2", "[real][errors]") {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(fs::path(GEOTRAIN_SOURCE_DIR) / "tests/bad_hosts"))
    if (entry.path().extension() == ".yaml") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  CHECK(paths.size() >= 15);
  for (const auto& path : paths) {
    fs::path expected_file = path;
    expected_file.replace_extension(".expected");
    INFO(path.filename().string());
    REQUIRE(fs::exists(expected_file));
    const auto expected = read_lines(expected_file);
    REQUIRE_FALSE(expected.empty());
    // stdout and stderr together: nothing but the problems may be printed.
    const auto run = sh(std::string("cd '") + GEOTRAIN_SOURCE_DIR + "' && '" + GEOTRAIN_BINARY + "' real plan " +
                        kScenario + " --hosts tests/bad_hosts/" + path.filename().string() + " 2>&1");
    CHECK(run.status == 2);
    CHECK(lines_of(run.out) == expected);
  }
}

TEST_CASE("a missing hosts file names the file", "[real][errors]") {
  const auto run = sh(std::string("cd '") + GEOTRAIN_SOURCE_DIR + "' && '" + GEOTRAIN_BINARY + "' real plan " +
                      kScenario + " --hosts tests/bad_hosts/does_not_exist.yaml 2>&1");
  CHECK(run.status == 2);
  CHECK(run.out == "tests/bad_hosts/does_not_exist.yaml: cannot open hosts file: No such file or directory\n");
}

TEST_CASE("json output needs both the json flag and an out file", "[real][errors]") {
  const std::string base = std::string("cd '") + GEOTRAIN_SOURCE_DIR + "' && '" + GEOTRAIN_BINARY +
                           "' real plan " + kScenario + " --hosts scenarios/real/hosts.yaml ";
  const auto no_out = sh(base + "--json 2>&1");
  CHECK(no_out.status == 2);
  CHECK(no_out.out == "--json: needs --out FILE (expected --json --out plan.json)\n");
  const auto no_json = sh(base + "--out x.json 2>&1");
  CHECK(no_json.status == 2);
  CHECK(no_json.out == "--out: given without --json (expected --json --out FILE)\n");
}

}  // namespace bad_hosts_test
