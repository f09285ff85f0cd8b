// `geotrain schedule` as a user meets it: output files, --evaluate JSON, bad assignment files.
#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace schedule_cli_test {

namespace {

namespace fs = std::filesystem;

struct Run {
  int status;
  std::string out;
};

Run run(const std::string& args, bool merge_stderr = false) {
  const std::string cmd = std::string(GEOTRAIN_BINARY) + " " + args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 65536> buffer{};
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

const std::string kCase5 = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/paper/dtfm_case5.yaml";

fs::path scratch(const std::string& name) {
  const fs::path dir = geotrain::test::process_temp_path("geotrain_schedule_cli_test");
  fs::create_directories(dir);
  return dir / name;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string groups_json(int swap_a = -1, int swap_b = -1, int replace_with = -1) {
  nlohmann::json g = nlohmann::json::array();
  for (int s = 0; s < 8; ++s) {
    g.push_back(nlohmann::json::array());
    for (int r = 0; r < 8; ++r) g.back().push_back(s * 8 + r);
  }
  if (swap_a >= 0) std::swap(g[0][swap_a], g[7][swap_b]);
  if (replace_with >= 0) g[2][5] = replace_with;
  return nlohmann::json{{"groups", g}}.dump();
}

}  // namespace

TEST_CASE("schedule writes an assignment that --evaluate scores to the printed cost", "[scheduler][cli]") {
  const fs::path out = scratch("a.json");
  fs::remove(out);
  const Run r = run("schedule " + kCase5 + " --population 10 --trials 20 --seed 3 --quiet --out " + out.string());
  REQUIRE(r.status == 0);
  CHECK(r.out.find("pipeline 7: ") != std::string::npos);
  CHECK(fs::exists(scratch("a.convergence.csv")));
  const auto summary = nlohmann::json::parse(std::ifstream(scratch("a.summary.json")));
  const Run e = run("schedule " + kCase5 + " --evaluate " + out.string());
  REQUIRE(e.status == 0);
  const auto j = nlohmann::json::parse(e.out);
  CHECK(j["total_cost_s"].get<double>() == Approx(summary["total_cost_s"].get<double>()).epsilon(1e-12));
  CHECK(j["as_placed"]["total_cost_s"].get<double>() == Approx(j["total_cost_s"].get<double>()).epsilon(1e-12));
  CHECK(j["pipeline_path"].size() == 8);
  CHECK(j["pp_cost_s"].get<double>() + j["dp_cost_s"].get<double>() == Approx(j["total_cost_s"].get<double>()));
  // Same seed, same files.
  const fs::path again = scratch("b.json");
  REQUIRE(run("schedule " + kCase5 + " --population 10 --trials 20 --seed 3 --quiet --out " + again.string()).status == 0);
  std::ifstream x(out), y(again);
  CHECK(std::string(std::istreambuf_iterator<char>(x), {}) == std::string(std::istreambuf_iterator<char>(y), {}));
}

TEST_CASE("evaluate of the identity groups: one city per stage group", "[scheduler][cli]") {
  const fs::path f = scratch("identity.json");
  write(f, groups_json());
  const Run e = run("schedule " + kCase5 + " --evaluate " + f.string());
  REQUIRE(e.status == 0);
  const auto j = nlohmann::json::parse(e.out);
  CHECK(j["dp_cost_s"].get<double>() == Approx(7 * 2 * (0.005 + 0.65 * 8 / 16)).epsilon(1e-12));
  CHECK_FALSE(j.contains("as_placed"));
}

TEST_CASE("bad assignment files get one clear line per problem", "[scheduler][cli]") {
  const fs::path f = scratch("bad.json");
  SECTION("unknown device") {
    write(f, groups_json(-1, -1, 71));
    const Run e = run("schedule " + kCase5 + " --evaluate " + f.string(), true);
    CHECK(e.status == 2);
    CHECK(e.out.find(f.string() + ": groups[2][5] = 71: no such device (expected 0 to 63)") != std::string::npos);
  }
  SECTION("duplicate device") {
    write(f, groups_json(-1, -1, 3));
    const Run e = run("schedule " + kCase5 + " --evaluate " + f.string(), true);
    CHECK(e.status == 2);
    CHECK(e.out.find("groups[2][5] = 3: device listed twice (also in groups[0])") != std::string::npos);
  }
  SECTION("wrong counts") {
    write(f, R"({"groups": [[0, 1, 2], [3]]})");
    const Run e = run("schedule " + kCase5 + " --evaluate " + f.string(), true);
    CHECK(e.status == 2);
    CHECK(e.out.find("groups: expected a list of 8 lists, found 2 entries") != std::string::npos);
  }
  SECTION("not JSON") {
    write(f, "groups: [1, 2]");
    const Run e = run("schedule " + kCase5 + " --evaluate " + f.string(), true);
    CHECK(e.status == 2);
    CHECK(e.out.find("malformed JSON") != std::string::npos);
  }
}

TEST_CASE("schedule --random-start leaves out the structured starting partitions", "[scheduler][cli]") {
  const std::string case2 = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/paper/dtfm_case2.yaml";
  auto summary_of = [&](const std::string& flags, const std::string& name) {
    const fs::path out = scratch(name + ".json");
    REQUIRE(run("schedule " + case2 + " --population 10 --trials 0 --seed 1 --quiet " + flags + " --out " + out.string()).status == 0);
    return nlohmann::json::parse(std::ifstream(scratch(name + ".summary.json")));
  };
  const auto structured = summary_of("", "structured");
  CHECK(structured["structured_seeds"] == 2);
  CHECK(structured["total_cost_s"].get<double>() == Approx(31.631616).epsilon(1e-9));  // the striped candidate
  const auto random = summary_of("--random-start", "random");
  CHECK(random["structured_seeds"] == 0);
  CHECK(random["total_cost_s"].get<double>() > 37);  // ten random candidates
}

TEST_CASE("a population of one is a random placement, not a search", "[scheduler][cli]") {
  const fs::path out = scratch("single_random.json");
  fs::remove(out);
  CHECK(run("schedule " + kCase5 + " --scheduler random --population 1 --trials 0 --seed 1 --quiet --out " +
            out.string())
            .status == 0);
  CHECK(fs::exists(out));
  const fs::path refused = scratch("single_gcma.json");
  fs::remove(refused);
  const Run e = run("schedule " + kCase5 + " --population 1 --quiet --out " + refused.string(), true);
  CHECK(e.status == 2);
  CHECK(e.out.find("--population 1: gcma needs at least 2") != std::string::npos);
  CHECK_FALSE(fs::exists(refused));
}

}  // namespace schedule_cli_test
