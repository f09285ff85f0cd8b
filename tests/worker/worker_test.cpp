// End-to-end tests of geotrain-worker on loopback: real processes, real tensors, real Gloo.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/program/collective_schedule.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "test_programs.hpp"
#include "worker_launcher.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace worker_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

LaunchOptions with_steps(int steps) {
  LaunchOptions o;
  o.steps = steps;
  return o;
}

// The global loss of each step: the mean of the last-stage ranks' local losses (equal shards).
std::vector<double> global_losses(const WorkerRun& run, int ranks) {
  std::vector<double> sum;
  std::vector<int> count;
  for (int r = 0; r < ranks; ++r) {
    const auto rows = read_iterations(run.dir + "/rank" + std::to_string(r));
    sum.resize(rows.size()), count.resize(rows.size());
    for (std::size_t s = 0; s < rows.size(); ++s)
      if (!std::isnan(rows[s].loss)) sum[s] += rows[s].loss, ++count[s];
  }
  for (std::size_t s = 0; s < sum.size(); ++s) sum[s] /= count[s];
  return sum;
}

void require_success(const WorkerRun& run) {
  for (std::size_t r = 0; r < run.exit_codes.size(); ++r) {
    INFO("rank " << r << " stderr: " << run.stderr_text[r]);
    REQUIRE(run.exit_codes[r] == 0);
  }
}

void check_same_losses(const std::vector<double>& a, const std::vector<double>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t s = 0; s < a.size(); ++s) {
    INFO("step " << s);
    CHECK(a[s] == Approx(b[s]).margin(2e-5));
  }
}

// Every op's counted bytes equal what the Program says: Send bytes, or the bytes the collective's
// schedule sends from this rank.
void check_traffic(const WorkerJob& job, const WorkerRun& run, int steps) {
  for (int r = 0; r < job.program.world_size; ++r) {
    const auto bytes = read_op_bytes(run.dir + "/rank" + std::to_string(r));
    const auto& ops = job.program.ranks[static_cast<std::size_t>(r)];
    for (int step = 0; step < steps; ++step)
      for (std::size_t i = 0; i < ops.size(); ++i) {
        if (!ops[i].active_in(step)) {  // e.g. a Moshpit group's average on another axis's round
          if (bytes.count({step, static_cast<int>(i)})) CHECK(bytes.at({step, static_cast<int>(i)}) == 0);
          continue;
        }
        double expected = 0;
        if (const auto* s = ops[i].as<SendOp>()) expected = s->bytes;
        if (const auto* c = ops[i].as<CollectiveOp>()) {
          const auto& g = job.program.group(c->group).ranks;
          const int pos = static_cast<int>(std::find(g.begin(), g.end(), r) - g.begin());
          const int root = static_cast<int>(std::find(g.begin(), g.end(), c->root) - g.begin());
          expected = 4.0 * static_cast<double>(elements_sent(collective_schedule(
                               c->kind, c->algorithm, static_cast<int>(g.size()), pos,
                               root % static_cast<int>(g.size()),
                               static_cast<std::size_t>(c->bytes / 4),
                               job.program.group(c->group).part_fractions)));
        }
        INFO("rank " << r << " step " << step << " op " << i << " " << ops[i].label);
        REQUIRE(bytes.count({step, static_cast<int>(i)}));
        CHECK(bytes.at({step, static_cast<int>(i)}) == expected);
      }
  }
}

}  // namespace

TEST_CASE("ddp all-reduce on 2 workers equals one process (ring p2p and Gloo's own)",
          "[worker][equivalence]") {
  const auto m = tiny_model();
  const int steps = 4;
  const auto reference_job = ddp_job(m, {1, 8});
  const auto reference = launch_workers(reference_job, "ddp-ref", with_steps(steps));
  require_success(reference);
  const auto ref = global_losses(reference, 1);
  REQUIRE(ref.size() == steps);

  const auto job = ddp_job(m, {2, 4});
  const auto ring = launch_workers(job, "ddp-ring-2", with_steps(steps));
  require_success(ring);
  check_same_losses(global_losses(ring, 2), ref);
  check_traffic(job, ring, steps);

  auto library = with_steps(steps);
  library.collectives = "gloo";
  const auto gloo = launch_workers(job, "ddp-gloo-2", library);
  require_success(gloo);
  check_same_losses(global_losses(gloo, 2), ref);
}

TEST_CASE("4 workers: parameter server, buckets and every all-reduce algorithm equal one process",
          "[worker][equivalence]") {
  const auto m = tiny_model();
  const int steps = 3;
  // Catch runs the test case once per section: compute the reference once.
  static const auto ref = global_losses(launch_workers(ddp_job(m, {1, 8}), "ddp4-ref", with_steps(steps)), 1);
  REQUIRE(ref.size() == steps);
  std::vector<std::pair<std::string, DdpOptions>> cases{
      {"ps-gather-scatter", {4, 2, 1, CollectiveAlgorithm::direct, true, false}},
      {"ddp-bucketed-ring", {4, 2, 2, CollectiveAlgorithm::ring, false, true}},
      {"ddp-tree", {4, 2, 1, CollectiveAlgorithm::tree, false, false}},
      {"ddp-halving-doubling", {4, 2, 1, CollectiveAlgorithm::halving_doubling, false, false}},
      {"ddp-butterfly", {4, 2, 1, CollectiveAlgorithm::butterfly, false, false}}};
  for (const auto& [name, options] : cases) {
    SECTION(name) {
      auto job = ddp_job(m, options);
      // hivemind's butterfly with uneven parts, as bandwidths would size them: the traffic check
      // below compares what each worker sent with the Program's bytes (what the simulator moves).
      if (options.algorithm == CollectiveAlgorithm::butterfly)
        for (auto& g : job.program.groups)
          if (g.ranks.size() == 4) g.part_fractions = {0.4, 0.3, 0.2, 0.1};
      const auto run = launch_workers(job, name, with_steps(steps));
      require_success(run);
      check_same_losses(global_losses(run, 4), ref);
      check_traffic(job, run, steps);
    }
  }
}

TEST_CASE("gpipe 2 stages x 2 replicas equals its unpipelined model", "[worker][equivalence]") {
  const auto m = tiny_model();
  const int steps = 3;
  auto reference_job = gpipe_job(m, 1, 1, 1, 8);
  reference_job.tie_embeddings = false;  // the pipeline's last stage owns its own LM head
  const auto reference = launch_workers(reference_job, "gpipe-ref", with_steps(steps));
  require_success(reference);
  const auto job = gpipe_job(m, 2, 2, 2, 2);
  const auto run = launch_workers(job, "gpipe-2x2", with_steps(steps));
  require_success(run);
  check_same_losses(global_losses(run, 4), global_losses(reference, 1));
  check_traffic(job, run, steps);
}

TEST_CASE("loss falls toward the entropy rate of the Markov source", "[worker][learning]") {
  const auto m = tiny_model();
  const int steps = 40;
  auto job = ddp_job(m, {2, 4});
  job.learning_rate = 6e-3;
  const auto run = launch_workers(job, "learning", with_steps(steps));
  require_success(run);
  const auto loss = global_losses(run, 2);
  std::ifstream in(run.dir + "/rank0/worker.json");
  const double bound = nlohmann::json::parse(in).at("entropy_rate_nats").get<double>();
  const double uniform = std::log(m.vocab);
  INFO("entropy rate " << bound << " first loss " << loss.front() << " last " << loss.back());
  REQUIRE(bound > 0.3);
  REQUIRE(bound < uniform - 2);
  CHECK(std::abs(loss.front() - uniform) < 0.2);  // an untrained model is near-uniform
  const double tail = (loss[steps - 1] + loss[steps - 2] + loss[steps - 3]) / 3;
  // 40 steps of 512 tokens do not reach the bound (a few hundred do); they must cover a good
  // part of the gap between a uniform guess and it (an untrained or broken model covers none).
  CHECK(tail < bound + 0.6 * (uniform - bound));
  CHECK(tail > bound - 0.1);  // and never meaningfully below what the source allows
}

TEST_CASE("a killed worker makes the others fail within the timeout", "[worker][failure]") {
  const auto m = tiny_model();
  auto o = with_steps(100000);
  o.timeout_s = 10;
  o.kill_rank = 1;
  o.kill_when = "step 1 done";  // killed while training, not while joining
  const auto run = launch_workers(ddp_job(m, {2, 4}), "killed", o);
  INFO(run.stderr_text[0]);
  CHECK(run.exit_codes[1] == 128 + 9);
  CHECK(run.exit_codes[0] == 1);
  REQUIRE(run.killed_at_s > 0);
  // Within the timeout, plus a margin for a loaded host to schedule the exit (not a speed target).
  CHECK(run.exit_after_s[0] < run.killed_at_s + o.timeout_s + 20);
  // The error names the rank, the step and the op it was in.
  CHECK(run.stderr_text[0].find("geotrain-worker: rank 0: error: rank 0 step ") != std::string::npos);
  CHECK(run.stderr_text[0].find(" op ") != std::string::npos);
}

TEST_CASE("Programs the strategy builders make for scenarios/emu run on loopback",
          "[worker][strategies]") {
  for (const char* name : {"ddp_ring_2", "ddp_bucketed_2", "ps_gather_2", "gpipe_2x2"}) {
    SECTION(name) {
      const auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/" + name + ".yaml");
      const auto job = make_worker_job(s, build_program(s));
      const int steps = 2;
      const auto run = launch_workers(job, std::string("scenario-") + name, with_steps(steps));
      require_success(run);
      check_traffic(job, run, steps);
      for (double loss : global_losses(run, job.program.world_size))
        CHECK(std::abs(loss - std::log(s.model.vocab)) < 0.3);  // two steps: still near uniform
    }
  }
}

TEST_CASE("DiLoCo with Moshpit groups and butterfly all-reduces with uneven parts runs on loopback",
          "[worker][strategies][moshpit][butterfly]") {
  const std::string file = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/diloco_moshpit_4.yaml";
  // As bundled: a 2 x 2 grid, two rounds (one per axis), each of two-member groups (whose
  // butterfly parts are equal: both members see the same link). Then one axis, one group of
  // four workers in four cities, whose parts hivemind's load balancing makes unequal.
  for (const bool one_axis : {false, true}) {
    SECTION(one_axis ? "one group of four, uneven parts" : "2 x 2 grid") {
      const auto s = load_scenario(file, one_axis ? std::vector<std::string>{"strategy.moshpit_dims=1"}
                                                  : std::vector<std::string>{});
      const auto job = make_worker_job(s, build_program(s));
      bool uneven = false;
      for (const auto& g : job.program.groups)
        for (double f : g.part_fractions) uneven = uneven || std::abs(f - 1.0 / static_cast<double>(g.ranks.size())) > 1e-3;
      CHECK(uneven == one_axis);
      const int rounds = 2;
      const auto run = launch_workers(job, one_axis ? "moshpit-1d" : "moshpit-2d", with_steps(rounds));
      require_success(run);
      check_traffic(job, run, rounds);  // each round, only its axis's groups moved bytes
      for (double loss : global_losses(run, job.program.world_size)) CHECK(std::isfinite(loss));
    }
  }
}

namespace {

WorkerJob scenario_job(const std::vector<std::string>& sets) {
  const auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml", sets);
  return make_worker_job(s, build_program(s));
}

std::string weights_fingerprint(const WorkerRun& run, int rank) {
  std::ifstream in(run.dir + "/rank" + std::to_string(rank) + "/worker.json");
  return nlohmann::json::parse(in).at("weights_fnv1a").get<std::string>();
}

}  // namespace

// Local SGD's all-reduce carries the weights (its payload), not the gradients. With plain SGD
// and H = 1, averaging the replicas' weights after one step from the same weights is one step
// on the averaged gradient: w - lr mean(g_i) = mean(w - lr g_i), i.e. exactly ddp.
TEST_CASE("local-sgd averages weights: H = 1 with SGD equals ddp, and replicas end identical",
          "[worker][equivalence][local-sgd]") {
  const int steps = 3;
  const auto ddp = launch_workers(scenario_job({"training.optimizer=sgd", "training.learning_rate=0.5"}),
                                  "lsgd-ddp", with_steps(steps));
  require_success(ddp);
  const auto job = scenario_job({"training.optimizer=sgd", "training.learning_rate=0.5",
                                 "strategy={name: local-sgd, sync_every: 1}"});
  const auto one = launch_workers(job, "lsgd-h1", with_steps(steps));
  require_success(one);
  check_same_losses(global_losses(one, 2), global_losses(ddp, 2));
  check_traffic(job, one, steps);
  CHECK(weights_fingerprint(one, 0) == weights_fingerprint(one, 1));

  // H = 3 with Adam: the replicas drift apart during the period and are equal after it.
  const auto drift = launch_workers(scenario_job({"strategy={name: local-sgd, sync_every: 3}"}),
                                    "lsgd-h3", with_steps(2));
  require_success(drift);
  CHECK(weights_fingerprint(drift, 0) == weights_fingerprint(drift, 1));
}

}  // namespace worker_test
