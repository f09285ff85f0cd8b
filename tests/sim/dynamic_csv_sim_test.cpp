// dynamic.csv of simulated runs (sim/results/dynamic_csv.hpp), the file the emulator writes too:
// one row per rank and run of a Dynamic op; gossip partners are gossip_pairing's (closed form)
// and symmetric; the members of a partial-reduce window list the same window; a synchronous
// strategy writes no dynamic.csv; the same scenario and seed give the same bytes.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

#include "sim/program/dynamic_rules.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim_child.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace dynamic_csv_sim_test {

using namespace geotrain;
using namespace geotrain::test;
namespace fs = std::filesystem;

namespace {

constexpr int kIterations = 6;

struct Row {
  int rank = 0, step = 0, op = 0;
  std::string rule;
  std::int64_t round = 0;
  std::vector<int> members;
  double decided_s = 0;
};

struct DynamicFile {
  std::string text;  // the whole file, for byte comparisons
  std::string header;
  std::vector<Row> rows;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string field; std::getline(in, field, sep);) out.push_back(field);
  return out;
}

Row parse_row(const std::string& line) {
  const auto f = split(line, ',');
  REQUIRE(f.size() == 7);
  Row r{std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[2]), f[3], std::stoll(f[4]), {},
        std::stod(f[6])};
  for (const auto& m : split(f[5], ';')) r.members.push_back(std::stoi(m));
  return r;
}

DynamicFile read_dynamic(const fs::path& file) {
  std::ifstream in(file);
  REQUIRE(in);
  DynamicFile d;
  std::getline(in, d.header);
  for (std::string line; std::getline(in, line);) d.rows.push_back(parse_row(line));
  std::ifstream again(file);
  std::stringstream all;
  all << again.rdbuf();
  d.text = all.str();
  return d;
}

// A small run on one region (10 ms, 1 Gbit/s) whose stragglers (30% of compute ops 50 ms
// late) make partial-reduce windows of every size.
Scenario small(int devices, const std::string& strategy) {
  const std::string n = std::to_string(devices), batch = std::to_string(2 * devices);
  std::string text = "devices: {count: " + n + ", profile: V100, regions: [lab]}\n";
  text += "network: {regions: {intra: {delay: 10ms, bandwidth: 1Gbps}}}\n";
  text += "model: {preset: gpt-mini}\n";
  text += "training: {global_batch: " + batch + ", micro_batch: 2}\n";
  text += "strategy: " + strategy + "\n";
  text += "stragglers: {probability: 0.3, sleep: 50ms, seed: 7}\n";
  text += "simulation: {iterations: " + std::to_string(kIterations) + "}\n";
  return parse_scenario(text, "dynamic_csv.yaml", "");
}

// Simulates `s` in a child that writes its run directory into a fresh temporary one.
fs::path simulate_to(const Scenario& s, const Program& p, const std::string& tag) {
  const auto dir =
      fs::temp_directory_path() / ("geotrain-dynamic-csv-" + tag + "-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const ComputeModel model(s);
  const auto compute = [&model](const ComputeOp& op, int device, const ComputeSite& site) {
    return model.seconds(op, device, site);
  };
  const auto run = simulate_in_child(s, p, {}, compute, dir.string());
  INFO(run.error);
  REQUIRE(run.ok);
  return dir;
}

const DynamicOp& dynamic_op(const Program& p, const Row& r) {
  const auto& ops = p.ranks.at(static_cast<std::size_t>(r.rank));
  const auto* d = ops.at(static_cast<std::size_t>(r.op)).as<DynamicOp>();
  REQUIRE(d);
  return *d;
}

int position(const Group& g, int rank) {
  return static_cast<int>(std::find(g.ranks.begin(), g.ranks.end(), rank) - g.ranks.begin());
}

// One row per (rank, iteration, Dynamic op) that ran, in (rank, step, op) order; each lists its
// rank among ascending members; a rank's runs of an op count rounds 0, 1, ... and learn their
// decisions in time order.
void check_rows_cover_runs(const Program& p, const DynamicFile& f) {
  CHECK(f.header == "rank,step,op,rule,round,members,decided_s");
  std::vector<std::tuple<int, int, int>> expected, got;
  for (int r = 0; r < p.world_size; ++r)
    for (int it = 0; it < kIterations; ++it)
      for (std::size_t i = 0; i < p.ranks[static_cast<std::size_t>(r)].size(); ++i) {
        const Op& op = p.ranks[static_cast<std::size_t>(r)][i];
        if (op.as<DynamicOp>() && op.active_in(it))
          expected.emplace_back(r, it, static_cast<int>(i));
      }
  std::map<std::pair<int, int>, std::int64_t> next_round;
  std::map<int, double> last_decided;
  for (const auto& row : f.rows) {
    INFO("rank " << row.rank << " step " << row.step << " op " << row.op);
    got.emplace_back(row.rank, row.step, row.op);
    CHECK(std::is_sorted(row.members.begin(), row.members.end()));
    CHECK(std::count(row.members.begin(), row.members.end(), row.rank) == 1);
    CHECK(row.round == next_round[{row.rank, row.op}]++);
    CHECK(row.decided_s >= last_decided[row.rank]);
    last_decided[row.rank] = row.decided_s;
  }
  CHECK(got == expected);
}

// The windows (member sets) each rank took part in, in its order, per op index.
using Windows = std::map<std::pair<int, std::vector<int>>, std::map<int, std::vector<const Row*>>>;

Windows windows_of(const DynamicFile& f) {
  Windows w;
  for (const auto& row : f.rows) w[{row.op, row.members}][row.rank].push_back(&row);
  return w;
}

}  // namespace

TEST_CASE("dynamic.csv of adpsgd: each rank's partner is gossip_pairing's, both list the pair",
          "[sim][dynamic]") {
  const Scenario s = small(5, "{name: adpsgd, seed: 11}");
  const Program p = build_program(s);
  const auto dir = simulate_to(s, p, "adpsgd");
  const auto f = read_dynamic(dir / "dynamic.csv");
  check_rows_cover_runs(p, f);
  std::map<std::tuple<int, int, std::int64_t>, std::vector<int>> members_of;  // (rank, op, round)
  for (const auto& row : f.rows) members_of[{row.rank, row.op, row.round}] = row.members;
  for (const auto& row : f.rows) {
    INFO("rank " << row.rank << " round " << row.round);
    CHECK(row.rule == "gossip");
    const DynamicOp& d = dynamic_op(p, row);
    const Group& g = p.group(d.group);
    const auto pairing = gossip_pairing(std::get<GossipRule>(d.rule).seed, row.round,
                                        static_cast<int>(g.ranks.size()));
    const int partner = pairing[static_cast<std::size_t>(position(g, row.rank))];
    std::vector<int> expected{row.rank};
    if (partner >= 0) expected.push_back(g.ranks[static_cast<std::size_t>(partner)]);
    std::sort(expected.begin(), expected.end());
    CHECK(row.members == expected);
    for (int m : row.members) CHECK(members_of[{m, row.op, row.round}] == row.members);
  }
  fs::remove_all(dir);
}

TEST_CASE("dynamic.csv of sdpipe-preduce: every member of a window lists the same window",
          "[sim][dynamic]") {
  const Scenario s = small(6, "{name: sdpipe-preduce, stages: 2, replicas: 3, window_initial: 5ms, "
                              "window_min: 1ms, window_max: 20ms}");
  const Program p = build_program(s);
  const auto dir = simulate_to(s, p, "sdpipe");
  const auto f = read_dynamic(dir / "dynamic.csv");
  check_rows_cover_runs(p, f);
  bool shared = false, lone = false;
  for (const auto& [key, by_rank] : windows_of(f)) {
    const auto& members = key.second;
    INFO("op " << key.first << " window of " << members.size() << " members");
    shared |= members.size() > 1;
    lone |= members.size() == 1;
    // Each member took part in this window as often as the others, the k-th times together:
    // they learnt the decision within a few store messages of each other.
    REQUIRE(by_rank.size() == members.size());
    const auto& first = by_rank.begin()->second;
    for (const auto& [rank, rows] : by_rank) {
      REQUIRE(rows.size() == first.size());
      for (std::size_t k = 0; k < rows.size(); ++k) {
        CHECK(rows[k]->rule == "partial_reduce");
        CHECK(std::abs(rows[k]->decided_s - first[k]->decided_s) < 0.1);
        const Group& g = p.group(dynamic_op(p, *rows[k]).group);
        for (int m : members) CHECK(position(g, m) < static_cast<int>(g.ranks.size()));
      }
    }
  }
  CHECK(shared);  // the scenario exercises both outcomes
  CHECK(lone);
  // Same scenario and seed, same bytes.
  const auto again = simulate_to(s, p, "sdpipe-again");
  CHECK(read_dynamic(again / "dynamic.csv").text == f.text);
  fs::remove_all(dir);
  fs::remove_all(again);
}

TEST_CASE("dynamic.csv: a synchronous strategy writes none", "[sim][dynamic]") {
  const Scenario s = small(4, "{name: ddp-allreduce}");
  const auto dir = simulate_to(s, build_program(s), "ddp");
  CHECK(fs::exists(dir / "ops.csv"));
  CHECK_FALSE(fs::exists(dir / "dynamic.csv"));
  fs::remove_all(dir);
}

}  // namespace dynamic_csv_sim_test
