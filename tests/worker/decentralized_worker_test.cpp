// The decentralized strategies (diloco, adpsgd, sdpipe-preduce, hetpipe) run by real
// geotrain-worker processes on loopback: losses fall, counted bytes equal what the Program fixes
// (or what the run-time decision implies), Dynamic-op decisions are the shared rules' and are
// consistent across ranks, straggler sleeps happen where the simulator's draws put them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sim/program/collective_schedule.hpp"
#include "sim/program/dynamic_rules.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/straggler_schedule.hpp"
#include "worker_launcher.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace decentralized_worker_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

struct Case {
  Scenario scenario;
  WorkerJob job;
  WorkerRun run;
};

Case run_scenario(const std::string& name, int steps, std::vector<std::string> sets = {},
                  double timeout_s = LaunchOptions{}.timeout_s) {
  Case c{load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/" + name + ".yaml", sets), {}, {}};
  c.job = make_worker_job(c.scenario, build_program(c.scenario));
  LaunchOptions o;
  o.steps = steps;
  o.timeout_s = timeout_s;
  c.run = launch_workers(c.job, "decentralized-" + name, o);
  for (std::size_t r = 0; r < c.run.exit_codes.size(); ++r) {
    INFO("rank " << r << " stderr: " << c.run.stderr_text[r]);
    REQUIRE(c.run.exit_codes[r] == 0);
  }
  return c;
}

std::string rank_dir(const Case& c, int r) { return c.run.dir + "/rank" + std::to_string(r); }

// The mean loss per step over the ranks that compute it.
std::vector<double> losses(const Case& c) {
  std::vector<double> sum;
  std::vector<int> count;
  for (int r = 0; r < c.job.program.world_size; ++r) {
    const auto rows = read_iterations(rank_dir(c, r));
    sum.resize(rows.size()), count.resize(rows.size());
    for (std::size_t s = 0; s < rows.size(); ++s)
      if (!std::isnan(rows[s].loss)) sum[s] += rows[s].loss, ++count[s];
  }
  for (std::size_t s = 0; s < sum.size(); ++s) sum[s] /= count[s];
  return sum;
}

void check_loss_falls(const Case& c) {
  const auto l = losses(c);
  INFO("first " << l.front() << " last " << l.back());
  REQUIRE(l.size() >= 2);
  CHECK(l.back() < l.front() - 0.05);
}

// Bytes a ring all-reduce of `bytes` (elements of `elem` bytes) sends from position `pos` of n.
double ring_bytes(int n, int pos, double bytes, double elem) {
  return elem * static_cast<double>(elements_sent(collective_schedule(
                    CollectiveKind::allreduce, CollectiveAlgorithm::ring, n, pos, 0,
                    static_cast<std::size_t>(bytes / elem))));
}

// Every Send/Collective op's bytes equal the Program's; other non-dynamic ops send nothing.
void check_fixed_bytes(const Case& c, int steps, double elem) {
  for (int r = 0; r < c.job.program.world_size; ++r) {
    const auto bytes = read_op_bytes(rank_dir(c, r));
    const auto& ops = c.job.program.ranks[static_cast<std::size_t>(r)];
    for (int step = 0; step < steps; ++step)
      for (std::size_t i = 0; i < ops.size(); ++i) {
        INFO("rank " << r << " step " << step << " op " << i << " " << ops[i].label);
        if (!ops[i].active_in(step)) {  // inactive (DiLoCo churn): no record at all
          CHECK_FALSE(bytes.count({step, static_cast<int>(i)}));
          continue;
        }
        if (ops[i].as<DynamicOp>()) continue;
        double expected = 0;
        if (const auto* s = ops[i].as<SendOp>()) expected = s->bytes;
        if (const auto* col = ops[i].as<CollectiveOp>()) {
          const auto& g = c.job.program.group(col->group).ranks;
          expected = ring_bytes(static_cast<int>(g.size()),
                                static_cast<int>(std::find(g.begin(), g.end(), r) - g.begin()), col->bytes, elem);
        }
        REQUIRE(bytes.count({step, static_cast<int>(i)}));
        CHECK(bytes.at({step, static_cast<int>(i)}) == expected);
      }
  }
}

// Partial reduce: every rank's k-th decision lists itself, each member of a window saw the same
// window, and the bytes it sent are a ring all-reduce among exactly those members.
void check_partial_reduce(const Case& c, double elem) {
  std::map<int, std::vector<DynamicRow>> rows;
  for (int r = 0; r < c.job.program.world_size; ++r) rows[r] = read_dynamic(rank_dir(c, r));
  int shared = 0;
  for (const auto& [r, list] : rows) {
    const auto bytes = read_op_bytes(rank_dir(c, r));
    REQUIRE_FALSE(list.empty());
    for (const auto& row : list) {
      INFO("rank " << r << " step " << row.step << " op " << row.op);
      CHECK(row.rule == "partial_reduce");
      CHECK(std::count(row.members.begin(), row.members.end(), r) == 1);
      const auto* d = c.job.program.ranks[static_cast<std::size_t>(r)][static_cast<std::size_t>(row.op)].as<DynamicOp>();
      REQUIRE(d != nullptr);
      const int pos = static_cast<int>(std::find(row.members.begin(), row.members.end(), r) - row.members.begin());
      const int n = static_cast<int>(row.members.size());
      CHECK(bytes.at({row.step, row.op}) == (n < 2 ? 0 : ring_bytes(n, pos, d->bytes, elem)));
      for (int m : row.members) {
        if (m == r) continue;
        // The member m has a decision with exactly the same window (matching by membership).
        const auto& other = rows.at(m);
        CHECK(std::any_of(other.begin(), other.end(), [&](const DynamicRow& o) { return o.members == row.members; }));
        ++shared;
      }
    }
  }
  CHECK(shared > 0);  // at least one window averaged two or more members
}

}  // namespace

TEST_CASE("diloco: H inner steps, all-reduced pseudo-gradient, outer Nesterov step, bytes per inner step fall H-fold",
          "[worker][decentralized]") {
  const int steps = 3;
  const Case c = run_scenario("diloco_2", steps);
  check_loss_falls(c);
  check_fixed_bytes(c, steps, 4);
  // One all-reduce per round: the same bytes a DDP step moves, so per inner step H times fewer.
  const int h = static_cast<int>(c.scenario.strategy.integer("inner_steps"));
  // ddp_ring_2: the same model on the same two devices, one ring all-reduce per step.
  const auto ddp = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml");
  const auto ddp_program = build_program(ddp);
  double ddp_bytes = 0;
  for (const auto& op : ddp_program.ranks[0])
    if (const auto* col = op.as<CollectiveOp>()) ddp_bytes += ring_bytes(2, 0, col->bytes, 4);
  const auto bytes = read_op_bytes(rank_dir(c, 0));
  double round = 0;
  for (const auto& [key, b] : bytes)
    if (key.first == 1) round += b;
  CHECK(ddp_bytes > 0);
  CHECK(h == 4);
  CHECK(ddp_bytes / (round / h) == Approx(h));  // per inner step H times fewer than per DDP step
}

TEST_CASE("diloco: the pseudo-gradient all-reduced in fp16 moves half the bytes", "[worker][decentralized]") {
  const int steps = 2;
  const Case c = run_scenario("diloco_2", steps, {"strategy.wire_dtype=fp16"});
  check_loss_falls(c);
  check_fixed_bytes(c, steps, 2);
  double round = 0, ddp_bytes = 0;
  for (const auto& [key, b] : read_op_bytes(rank_dir(c, 1)))
    if (key.first == 1) round += b;
  const auto ddp = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml");
  for (const auto& op : build_program(ddp).ranks[1])
    if (const auto* col = op.as<CollectiveOp>()) ddp_bytes += ring_bytes(2, 1, col->bytes, 4);
  CHECK(round == ddp_bytes / 2);
}

namespace {

std::string fingerprint(const Case& c, int rank) {
  std::ifstream in(rank_dir(c, rank) + "/worker.json");
  return nlohmann::json::parse(in).at("weights_fnv1a").get<std::string>();
}

}  // namespace

// Streaming DiLoCo with one fragment synchronized after every inner step, no overlap and a merge
// that takes the global weights (mixing 0) is DiLoCo with H = 1, op for op: the same losses and
// the same weights to the bit. The fragments' own buffers, outer state and merge must reproduce
// DiLoCo's whole-model outer step exactly.
TEST_CASE("streaming-diloco: one fragment, H = 1, tau 0, mixing 0 trains exactly as diloco H = 1",
          "[worker][decentralized][streaming]") {
  const int steps = 3;
  const Case diloco = run_scenario("diloco_2", steps, {"strategy.inner_steps=1"});
  const Case streaming = run_scenario(
      "diloco_2", steps,
      {"strategy={name: streaming-diloco, inner_steps: 1, fragments: 1, overlap_steps: 0, mixing: 0, "
       "outer_lr: 0.7, outer_momentum: 0.9}"});
  REQUIRE(streaming.job.program.outer_step->fragmented);
  const auto a = losses(diloco), b = losses(streaming);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
  CHECK(fingerprint(diloco, 0) == fingerprint(streaming, 0));
  CHECK(fingerprint(streaming, 0) == fingerprint(streaming, 1));  // mixing 0: replicas equal
}

// Two fragments over H = 4, each exchange overlapping one inner step (the fragment's update lands
// one step late, merged half and half with the weights trained meanwhile): every fragment's
// all-reduce moves exactly its Program bytes (the fragments' buffers tile the model), losses
// fall, and with a merge that keeps half the local weights the replicas differ.
TEST_CASE("streaming-diloco: two overlapped fragments move their Program bytes and train",
          "[worker][decentralized][streaming]") {
  const int steps = 3;
  const Case c = run_scenario("diloco_2", steps,
                              {"strategy={name: streaming-diloco, inner_steps: 4, fragments: 2, overlap_steps: 1}"});
  check_loss_falls(c);
  check_fixed_bytes(c, steps, 4);
  int exchanges = 0;
  double fragment_bytes = 0;
  for (const auto& op : c.job.program.ranks[0])
    if (const auto* col = op.as<CollectiveOp>()) {
      CHECK(op.nonblocking);
      ++exchanges;
      fragment_bytes += col->bytes;
    }
  CHECK(exchanges == 2);
  // Together the fragments are the whole model in fp32, as DiLoCo's one exchange.
  const auto whole = build_program(load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/diloco_2.yaml"));
  double diloco_bytes = 0;
  for (const auto& op : whole.ranks[0])
    if (const auto* col = op.as<CollectiveOp>()) diloco_bytes += col->bytes;
  CHECK(fragment_bytes == diloco_bytes);
  CHECK(fingerprint(c, 0) != fingerprint(c, 1));
}

// The exchange really overlaps the inner steps: rank 1 computes 20 times slower (a device
// slowdown), so it posts its fragment's all-reduce long after rank 0. Rank 0 meanwhile runs the
// next inner step to its end (forward, backward, optimizer) and waits only at the fragment's
// Wait: its optimizer step ends before rank 1 has even posted. (An optimizer that waited for the
// open exchange would end after it.) A matter of order, not of speed: rank 1's slowed step takes
// 20 of rank 0's. Rank 0 waits that long for rank 1's fragment, so the Gloo timeout is 600 s,
// not 30: on a loaded machine (CI, 2026-11-28) 20 slowed steps took longer than 30 s.
TEST_CASE("streaming-diloco: the inner steps run on while the fragment's exchange waits for a slow peer",
          "[worker][decentralized][streaming]") {
  const Case c = run_scenario("diloco_2", 1,
                              {"strategy={name: streaming-diloco, inner_steps: 4, fragments: 2, overlap_steps: 1}",
                               "devices.overrides=[{id: 1, slowdown: 20}]"},
                              600);
  const auto& ops = c.job.program.ranks[0];
  const auto index = [&](const std::string& label) {
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (ops[i].label == label) return static_cast<int>(i);
    FAIL("no op " << label);
    return -1;
  };
  const auto rank0 = read_op_times(rank_dir(c, 0));
  const auto rank1 = read_op_times(rank_dir(c, 1));
  const double rank0_optimizer_end = rank0.at({0, index("optim h1")}).second;
  const double rank1_posts = rank1.at({0, index("allreduce fragment 0")}).first;
  CHECK(rank0_optimizer_end < rank1_posts);
  CHECK(rank0.at({0, index("wait fragment 0")}).second >= rank1_posts);  // the Wait is where it waits
}

TEST_CASE("diloco with an averaging timeout: partial reduce of fp16 pseudo-gradients among the ready workers",
          "[worker][decentralized]") {
  const Case c = run_scenario("diloco_timeout_3", 4);
  check_loss_falls(c);
  check_partial_reduce(c, 2);
}

TEST_CASE("adpsgd: gossip with the seeded partner, stragglers where the simulator sleeps",
          "[worker][decentralized]") {
  const int steps = 4;
  const Case c = run_scenario("adpsgd_4", steps);
  check_loss_falls(c);
  const auto& p = c.job.program;
  const StragglerSchedule stragglers(c.scenario.stragglers);
  int sleeps = 0;
  for (int r = 0; r < p.world_size; ++r) {
    const auto rows = read_dynamic(rank_dir(c, r));
    const auto bytes = read_op_bytes(rank_dir(c, r));
    REQUIRE(rows.size() == static_cast<std::size_t>(steps));
    for (const auto& row : rows) {
      const auto* d = p.ranks[static_cast<std::size_t>(r)][static_cast<std::size_t>(row.op)].as<DynamicOp>();
      REQUIRE(d != nullptr);
      const auto pairing = gossip_pairing(std::get<GossipRule>(d->rule).seed, row.round, p.world_size);
      const int partner = pairing[static_cast<std::size_t>(r)];
      std::vector<int> expected{r};
      if (partner >= 0) expected.push_back(partner);
      std::sort(expected.begin(), expected.end());
      CHECK(row.round == row.step);
      CHECK(row.members == expected);
      CHECK(bytes.at({row.step, row.op}) == (partner < 0 ? 0 : d->bytes));
    }
    const auto times = read_op_times(rank_dir(c, r));
    const auto& ops = p.ranks[static_cast<std::size_t>(r)];
    for (int step = 0; step < steps; ++step)
      for (std::size_t i = 0; i < ops.size(); ++i)
        if (const double sleep = stragglers.sleep_s(r, step, static_cast<int>(i), ops[i]); sleep > 0) {
          const auto [start, end] = times.at({step, static_cast<int>(i)});
          CHECK(end - start >= sleep);
          ++sleeps;
        }
  }
  CHECK(sleeps > 0);
}

TEST_CASE("sdpipe-preduce: per-stage partial reduce decided by the store coordinator",
          "[worker][decentralized]") {
  const Case c = run_scenario("sdpipe_2x2", 4);
  check_loss_falls(c);
  check_fixed_bytes(c, 4, 4);
  check_partial_reduce(c, 4);
}

TEST_CASE("hetpipe: pushes and pulls to the stage's parameter server", "[worker][decentralized]") {
  const int steps = 4;
  const Case c = run_scenario("hetpipe_2x2", steps);
  check_loss_falls(c);
  check_fixed_bytes(c, steps, 4);
}

TEST_CASE("diloco churn: a worker away for a round rejoins with a peer's weights and outer momentum",
          "[worker][decentralized][churn]") {
  const int steps = 4;
  for (const std::string averaging : {"wait-for-all", "timeout"}) {
    INFO(averaging);
    const Case c = run_scenario("diloco_churn_3", steps,
                                {"strategy.averaging=" + averaging, "strategy.timeout=30s"});
    check_loss_falls(c);
    check_fixed_bytes(c, steps, 4);
    // Worker 2 has no iteration figures in its round away, and the same final weights as the
    // others: it loaded worker 0's state, then averaged with everyone.
    const auto rows = read_iterations(rank_dir(c, 2));
    REQUIRE(rows.size() == static_cast<std::size_t>(steps));
    CHECK(std::isnan(rows[1].loss));
    CHECK_FALSE(std::isnan(rows[2].loss));
    std::set<std::string> fingerprints;
    for (int r = 0; r < 3; ++r) {
      std::ifstream in(rank_dir(c, r) + "/worker.json");
      fingerprints.insert(nlohmann::json::parse(in)["weights_fnv1a"].get<std::string>());
    }
    CHECK(fingerprints.size() == 1);
    if (averaging == "timeout") {  // the windows of round 1 are among workers 0 and 1 only
      for (const auto& row : read_dynamic(rank_dir(c, 0)))
        if (row.step == 1) CHECK(row.members == std::vector<int>{0, 1});
    }
  }
}

}  // namespace decentralized_worker_test
