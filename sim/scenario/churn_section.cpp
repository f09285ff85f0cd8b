// churn: DiLoCo workers that leave and rejoin (hivemind-style, see sim/strategies/diloco.cpp)
//   churn:
//     - {worker: 3, leave: 4, join: 8}   # worker (Program rank) 3 is away in rounds 4..7
//     - {worker: 1, leave: 6}            # away from round 6 on
// Rounds are outer rounds (Program iterations), counted from 0.
#include <fmt/format.h>

#include "sim/scenario/churn_schedule.hpp"
#include "sim/scenario/sections.hpp"
#include "sim/scenario/strategy_catalog.hpp"

namespace geotrain::sections {

namespace {

// The strategies whose Programs model workers leaving and rejoining, as their declarations say.
bool supports_churn(const std::string& strategy) {
  const StrategyDecl* decl = find_strategy(strategy);
  return decl && decl->supports_churn;
}

std::string churn_strategies() {
  std::string names;
  for (const auto& d : strategy_catalog())
    if (d.supports_churn) names += (names.empty() ? "" : ", ") + d.name;
  return names;
}

std::string rounds_text(int begin, int end) {
  if (end < 0) return fmt::format("rounds {} onwards", begin);
  return end == begin + 1 ? fmt::format("round {}", begin)
                          : fmt::format("rounds {} to {}", begin, end - 1);
}

// Whether two entries of one worker overlap (each reported).
bool check_overlaps(const ChurnSpec& c, Diagnostics& diag) {
  bool found = false;
  for (std::size_t i = 0; i < c.absences.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) {
      const Absence& a = c.absences[i];
      const Absence& b = c.absences[j];
      const bool overlap = a.worker == b.worker && (b.join < 0 || a.leave < b.join) &&
                           (a.join < 0 || b.leave < a.join);
      if (overlap) {
        diag.error(a.line, fmt::format("churn[{}]", i),
                   fmt::format("worker {} is already away in {} (line {}; expected one entry per "
                               "absence, absences apart)",
                               a.worker, rounds_text(b.leave, b.join), b.line));
        found = true;
        break;
      }
    }
  return found;
}

}  // namespace

void parse_churn(Context& ctx, const YAML::Node& node, Scenario& out) {
  if (!node.IsDefined() || node.IsNull()) return;
  out.churn.line = line_of(node);
  if (!node.IsSequence()) {
    ctx.diag.error(out.churn.line, "churn",
                   "expected a list of {worker, leave, join} entries (e.g. "
                   "- {worker: 3, leave: 4, join: 8})");
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    YamlSection s(ctx.diag, node[i], fmt::format("churn[{}]", i));
    if (!s.present()) continue;
    Absence a;
    a.line = s.line();
    const auto worker = s.integer("worker", 0, 1'000'000, true);
    const auto leave = s.integer("leave", 0, 1'000'000'000, true);
    const auto join = s.integer("join", 1, 1'000'000'000);
    s.finish();
    if (!worker || !leave || (s.has("join") && !join)) continue;
    a.worker = static_cast<int>(*worker);
    a.leave = static_cast<int>(*leave);
    if (join) {
      if (*join <= *leave) {
        ctx.diag.error(s.line_of("join"), s.key_path("join"), std::to_string(*join),
                       fmt::format("not after leave = {} (expected a later round; leave out join "
                                   "for a worker that does not come back)",
                                   *leave));
        continue;
      }
      a.join = static_cast<int>(*join);
    } else if (*leave == 0) {
      ctx.diag.error(s.line_of("leave"), s.key_path("leave"), "0",
                     fmt::format("worker {} would never take part (expected a join round, or "
                                 "fewer devices)",
                                 *worker));
      continue;
    }
    out.churn.absences.push_back(a);
  }
}

void check_churn(const Scenario& s, Diagnostics& diag) {
  const ChurnSpec& c = s.churn;
  if (c.absences.empty()) return;
  if (!supports_churn(s.strategy.name)) {
    diag.error(c.line, "churn",
               fmt::format("strategy '{}' cannot have workers leave and join (expected strategy "
                           "{}, or no churn section)",
                           s.strategy.name, churn_strategies()));
    return;
  }
  const int workers = participating_devices(s);
  bool in_range = true;
  for (std::size_t i = 0; i < c.absences.size(); ++i)
    if (c.absences[i].worker >= workers) {
      diag.error(c.absences[i].line, fmt::format("churn[{}].worker", i),
                 std::to_string(c.absences[i].worker),
                 fmt::format("no such worker (expected 0 to {})", workers - 1));
      in_range = false;
    }
  if (!in_range) return;
  if (check_overlaps(c, diag)) return;
  const ChurnSchedule schedule(c, workers);
  const auto& epochs = schedule.epochs();
  for (std::size_t e = 0; e < epochs.size(); ++e) {
    const int end = e + 1 < epochs.size() ? epochs[e + 1] : -1;
    if (schedule.present_in(epochs[e]).empty())
      diag.error(c.line, "churn",
                 fmt::format("no worker is present in {} (expected at least one in every round)",
                             rounds_text(epochs[e], end)));
    else if (!schedule.joining(epochs[e]).empty() && schedule.state_source(epochs[e]) < 0)
      diag.error(c.line, "churn",
                 fmt::format("worker {} rejoins in round {} but no worker is present in both "
                             "rounds {} and {} to send it the state (expected one that stays)",
                             schedule.joining(epochs[e]).front(), epochs[e], epochs[e] - 1,
                             epochs[e]));
  }
}

}  // namespace geotrain::sections
