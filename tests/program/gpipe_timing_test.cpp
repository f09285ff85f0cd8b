// The gpipe Program, timed by a small replay (compute ops take a given time per stage and kind;
// each direction of a link carries one transfer at a time in send order, as the engine's FIFO
// senders do; receives complete when their transfer does), must end every stage's pipeline work
// exactly when closed_forms' gpipe_stage_end_times says: the Program's op order and the closed
// form describe the same pipeline.
#include <catch2/catch.hpp>
#include <map>

#include "program_test_util.hpp"
#include "sim/program/closed_forms.hpp"
#include "sim/strategies/strategy_registry.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace gpipe_timing_test {

using namespace geotrain;

namespace {

struct Times {
  std::vector<double> forward, backward, activation_link, gradient_link;
};

// End time of every op of every rank (one iteration, D = 1: no cross-replica traffic).
std::vector<std::vector<double>> replay(const Program& p, const Times& t) {
  const auto n = p.ranks.size();
  std::vector<std::vector<double>> end(n), post(n);
  for (std::size_t r = 0; r < n; ++r)
    end[r].assign(p.ranks[r].size(), 0), post[r].assign(p.ranks[r].size(), 0);
  for (bool changed = true; changed;) {
    changed = false;
    // Transfers: per direction in send order; the k-th send on (src, dst, tag) meets the k-th recv.
    std::map<std::pair<int, int>, double> link_free;
    std::map<std::tuple<int, int, int>, std::vector<std::size_t>> recv_at;
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t i = 0; i < p.ranks[r].size(); ++i)
        if (const auto* v = p.ranks[r][i].as<RecvOp>())
          recv_at[{v->peer, static_cast<int>(r), v->tag}].push_back(i);
    std::vector<std::vector<double>> done = end;
    for (std::size_t r = 0; r < n; ++r)
      for (std::size_t i = 0; i < p.ranks[r].size(); ++i) {
        const auto* s = p.ranks[r][i].as<SendOp>();
        if (!s) continue;
        const int src = static_cast<int>(r), dst = s->peer;
        const std::size_t j = recv_at.at({src, dst, s->tag}).front();
        const double start =
            std::max({post[r][i], post[static_cast<std::size_t>(dst)][j], link_free[{src, dst}]});
        const double link = dst > src
                                ? t.activation_link[r % t.forward.size()]
                                : t.gradient_link[static_cast<std::size_t>(dst) % t.forward.size()];
        done[r][i] = done[static_cast<std::size_t>(dst)][j] = link_free[{src, dst}] = start + link;
      }
    // Ranks: each op starts when the previous one ends.
    for (std::size_t r = 0; r < n; ++r) {
      double clock = 0;
      for (std::size_t i = 0; i < p.ranks[r].size(); ++i) {
        const Op& op = p.ranks[r][i];
        double finish = clock;
        post[r][i] = clock;
        if (const auto* c = op.as<ComputeOp>()) {
          const auto st = static_cast<std::size_t>(c->stage);
          if (c->kind == ComputeKind::forward) finish += t.forward[st];
          if (c->kind == ComputeKind::backward) finish += t.backward[st];
        } else if (const auto* w = op.as<WaitOp>()) {
          for (int k : w->ops) finish = std::max(finish, done[r][static_cast<std::size_t>(k)]);
        } else if (!op.nonblocking && (op.as<SendOp>() || op.as<RecvOp>())) {
          finish = std::max(finish, done[r][i]);
        }
        const double recorded = op.nonblocking ? done[r][i] : finish;
        if (recorded != end[r][i]) end[r][i] = recorded, changed = true;
        clock = finish;
      }
    }
  }
  return end;
}

void check_against_closed_form(int stages, int m, const Times& t) {
  const Scenario s = test::scenario_with(
      stages, fmt::format("{{name: gpipe, stages: {}, replicas: 1}}", stages), "gpt-mini",
      fmt::format("training: {{global_batch: {}, micro_batches: {}}}\n", m, m));
  const Program p = build_program(s);
  const auto end = replay(p, t);
  const auto expected =
      gpipe_stage_end_times(t.forward, t.backward, t.activation_link, t.gradient_link, m);
  for (int st = 0; st < stages; ++st) {
    INFO("stage " << st);
    const auto& ops = p.ranks[static_cast<std::size_t>(st)];
    // The pipeline work ends with the op before the data-parallel sync.
    std::size_t sync = 0;
    while (!ops[sync].as<CollectiveOp>()) ++sync;
    double finished = 0;
    for (std::size_t i = 0; i < sync; ++i)
      finished = std::max(finished, end[static_cast<std::size_t>(st)][i]);
    CHECK(finished == Approx(expected[static_cast<std::size_t>(st)]).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("gpipe Program timing = closed form: compute-bound, uneven stages",
          "[program][gpipe][closed-form]") {
  check_against_closed_form(
      4, 6,
      {{0.20, 0.25, 0.22, 0.30}, {0.40, 0.50, 0.41, 0.66}, {0.05, 0.08, 0.03}, {0.04, 0.02, 0.07}});
}

TEST_CASE("gpipe Program timing = closed form: one slow link paces the pipeline",
          "[program][gpipe][closed-form]") {
  check_against_closed_form(3, 5, {{0.1, 0.1, 0.1}, {0.2, 0.2, 0.2}, {0.05, 0.9}, {0.7, 0.05}});
}

TEST_CASE("gpipe Program timing = closed form: a single stage", "[program][gpipe][closed-form]") {
  check_against_closed_form(1, 3, {{0.1}, {0.2}, {}, {}});
}

}  // namespace gpipe_timing_test
