// The geotrain executable as a user meets it: exit codes, stderr lines, and the topology files.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/topology/dtfm_cases.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace cli_test {

namespace {

struct Run {
  int status;
  std::string out;
};

// Runs geotrain with arguments; stdout captured, stderr redirected into it when merge is set.
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

const std::string kSource = GEOTRAIN_SOURCE_DIR;

}  // namespace

TEST_CASE("check accepts the bundled scenarios", "[cli]") {
  const Run r = run("check " + kSource + "/scenarios/paper/dtfm_case5.yaml");
  CHECK(r.status == 0);
  CHECK(r.out.find("regions    Oregon 8, Virginia 8, Ohio 8, Tokyo 8, Seoul 8, London 8, Frankfurt 8, Ireland 8") !=
        std::string::npos);
  CHECK(r.out.find("\nok\n") != std::string::npos);
}

TEST_CASE("bad input exits 2 with one line per problem and nothing on stdout", "[cli][errors]") {
  const Run quiet = run("check " + kSource + "/tests/bad_scenarios/many_problems.yaml");
  CHECK(quiet.status == 2);
  CHECK(quiet.out.empty());
  const Run r = run("check " + kSource + "/tests/bad_scenarios/many_problems.yaml", true);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 4);
  CHECK(run("check --no-such-flag x.yaml", true).status == 2);
  CHECK(run("no-such-command", true).status == 2);
  CHECK(run("check /nonexistent.yaml", true).out ==
        "/nonexistent.yaml: cannot open scenario file: No such file or directory\n");
  CHECK(run("topology " + kSource + "/scenarios/paper/dtfm_case5.yaml --format xml", true).status == 2);
}

TEST_CASE("simulate refuses sampled compute variance without a profile, writing nothing", "[cli][errors]") {
  const std::string file = kSource + "/tests/bad_scenarios/compute_variance_without_profile.yaml";
  const std::string out = "/tmp/geotrain-cli-compute-variance-" + std::to_string(::getpid());
  const Run r = run("simulate " + file + " --out " + out, true);
  CHECK(r.status == 2);
  CHECK(r.out == file + ":7: simulation.compute_variance = 'sampled': needs simulation.compute_profile "
                        "(expected a measured profile to draw from, or compute_variance: median)\n");
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("a placement key its kind does not read is refused, also through --set",
          "[cli][errors]") {
  // dtfm_case5 says placement.kind: identity, which reads neither file nor seed: they used to be
  // accepted and ignored.
  const std::string file = kSource + "/scenarios/paper/dtfm_case5.yaml";
  const std::string out = "/tmp/geotrain-cli-placement-" + std::to_string(::getpid());
  // (The line number an overridden value reports is not the point here: only what follows it.)
  auto one_line_ending = [](const std::string& text, const std::string& tail) {
    return std::count(text.begin(), text.end(), '\n') == 1 && text.size() >= tail.size() &&
           text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
  };
  Run r = run("simulate " + file + " --out " + out + " --set placement.file=assignment.json", true);
  CHECK(r.status == 2);
  CHECK(r.out.rfind(file + ":", 0) == 0);
  CHECK(one_line_ending(r.out,
                        ": placement.file = 'assignment.json': has no effect with placement.kind "
                        "'identity' (expected placement.kind: file, or no placement.file)\n"));
  CHECK_FALSE(std::filesystem::exists(out));
  r = run("check " + file + " --set placement.seed=9", true);
  CHECK(r.status == 2);
  CHECK(one_line_ending(r.out,
                        ": placement.seed = '9': has no effect with placement.kind 'identity' "
                        "(expected placement.kind: random, or no placement.seed)\n"));
  // With the kind that reads it, the same key is taken.
  CHECK(run("check " + file + " --set placement.kind=random --set placement.seed=9").status == 0);
}

TEST_CASE("topology reproduces the DT-FM matrices for all five cases", "[cli][dtfm]") {
  for (int c = 1; c <= 5; ++c) {
    const Run r = run("topology " + kSource + "/scenarios/paper/dtfm_case" + std::to_string(c) + ".yaml");
    REQUIRE(r.status == 0);
    const auto doc = nlohmann::json::parse(r.out);
    const auto t = geotrain::make_dtfm_case(c, 64);
    REQUIRE(doc["devices"].size() == 64);
    REQUIRE(doc["delay_ms"].size() == 64);
    for (int i = 0; i < 64; ++i) {
      CHECK(doc["devices"][i]["region"] == t.region_name(t.region_of(i)));
      CHECK(doc["delay_ms"][i][i] == 0);
      CHECK(doc["bandwidth_Gbps"][i][i] == 0);
      for (int j = 0; j < 64; ++j)
        if (i != j) {
          CHECK(doc["delay_ms"][i][j].get<double>() == Approx(t.delay_s(i, j) * 1e3));
          CHECK(doc["bandwidth_Gbps"][i][j].get<double>() == Approx(t.bandwidth_Bps(i, j) * 8 / 1e9));
        }
    }
  }
  // A spot value written as the reference writes it.
  const auto doc = nlohmann::json::parse(run("topology " + kSource + "/scenarios/paper/dtfm_case5.yaml").out);
  CHECK(doc["delay_ms"][0][8] == 67.0);
  CHECK(doc["bandwidth_Gbps"][0][8] == 0.79);
}

TEST_CASE("topology refuses huge matrices without --force, and writes CSV", "[cli]") {
  const Run big = run("topology " + kSource + "/scenarios/examples/world_regions_1024.yaml", true);
  CHECK(big.status == 2);
  CHECK(big.out.find("1024 devices make a 1024 x 1024 matrix (over 512 devices needs --force)") != std::string::npos);
  const Run csv = run("topology " + kSource + "/scenarios/examples/four_hosts_matrix.yaml --format csv");
  CHECK(csv.status == 0);
  CHECK(csv.out.rfind("src,dst,src_region,dst_region,delay_ms,bandwidth_Gbps\n0,1,all,all,10,10\n", 0) == 0);
}

}  // namespace cli_test
