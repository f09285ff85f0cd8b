// The merged ops.csv, iterations.csv, trace.json and compute-profile samples of a run
// (conventions in run_results.hpp).
#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

#include "emu/launch/run_results.hpp"
#include "sim/common/csv.hpp"

namespace geotrain::emu {

namespace {


// A rank's rows in (step, op) order: workers record nonblocking ops when they complete.
std::vector<const RankOpRow*> ordered(const std::vector<RankOpRow>& rows) {
  std::vector<const RankOpRow*> out;
  for (const auto& r : rows) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const RankOpRow* a, const RankOpRow* b) {
    return a->step != b->step ? a->step < b->step : a->op < b->op;
  });
  return out;
}

std::string num(double x) { return fmt::format("{:.9f}", x); }

}  // namespace

void write_ops_csv(const Program& program, const RankMeasurements& m, std::ostream& out) {
  out << "rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,idle_s,"
         "bytes_sent,peer,group\n";
  for (int r = 0; r < program.world_size; ++r)
    for (const RankOpRow* row : ordered(m.ops[static_cast<std::size_t>(r)])) {
      const Op& op = program.ranks[static_cast<std::size_t>(r)].at(static_cast<std::size_t>(row->op));
      std::string peer, group;
      if (const auto* s = op.as<SendOp>()) peer = std::to_string(s->peer);
      if (const auto* v = op.as<RecvOp>()) peer = std::to_string(v->peer);
      if (const auto* c = op.as<CollectiveOp>()) group = program.group(c->group).name;
      fmt::print(out, "{},{},{},{},{},{},{},{},{},{},,{},{},{}\n", r,
                 program.device_of_rank[static_cast<std::size_t>(r)], row->step, row->op, op_type_name(op),
                 csv_field(op.label), op.nonblocking ? 1 : 0, num(row->start_s), num(row->end_s),
                 num(row->end_s - row->start_s), row->bytes < 0 ? "" : fmt::format("{}", row->bytes),
                 peer, csv_field(group));
    }
}

void write_iterations_csv(const std::vector<StepFigures>& steps, std::ostream& out) {
  out << "step,time_s,loss,tokens_per_s,bytes\n";
  for (const auto& s : steps)
    fmt::print(out, "{},{},{},{},{}\n", s.step, num(s.time_s),
               std::isnan(s.loss) ? "" : fmt::format("{:.9g}", s.loss), fmt::format("{:.6g}", s.tokens_per_s),
               s.bytes < 0 ? "" : fmt::format("{}", s.bytes));
}

void write_trace(const Program& program, const RankMeasurements& m, std::ostream& out) {
  out << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  bool first = true;
  auto sep = [&] {
    if (!first) out << ",\n";
    first = false;
  };
  for (int r = 0; r < program.world_size; ++r) {
    sep();
    fmt::print(out, R"j({{"ph": "M", "name": "process_name", "pid": {}, "args": {{"name": "rank {} (device {})"}}}})j",
               r, r, program.device_of_rank[static_cast<std::size_t>(r)]);
    fmt::print(out, ",\n" R"j({{"ph": "M", "name": "thread_name", "pid": {}, "tid": 0, "args": {{"name": "ops"}}}})j", r);
    fmt::print(out, ",\n" R"j({{"ph": "M", "name": "thread_name", "pid": {}, "tid": 1, "args": {{"name": "in flight"}}}})j", r);
  }
  for (int r = 0; r < program.world_size; ++r)
    for (const RankOpRow* row : ordered(m.ops[static_cast<std::size_t>(r)])) {
      const Op& op = program.ranks[static_cast<std::size_t>(r)].at(static_cast<std::size_t>(row->op));
      sep();
      fmt::print(out,
                 R"j({{"ph": "X", "name": {}, "cat": "{}", "pid": {}, "tid": {}, "ts": {:.3f}, "dur": {:.3f}, )j"
                 R"j("args": {{"iteration": {}, "op": {}, "bytes_sent": {}}}}})j",
                 nlohmann::json(op.label).dump(), op_type_name(op), r, op.nonblocking ? 1 : 0,
                 row->start_s * 1e6, (row->end_s - row->start_s) * 1e6, row->step, row->op,
                 row->bytes < 0 ? std::string("null") : fmt::format("{}", row->bytes));
    }
  out << "\n]}\n";
}

std::vector<ProfileSample> profile_samples(const Program& program, const RankMeasurements& m, int warmup,
                                           const std::vector<double>& slowdown_of_rank) {
  std::vector<ProfileSample> out;
  for (int r = 0; r < program.world_size; ++r) {
    // The profile is device-neutral: the simulator multiplies it by each device's slowdown again.
    const double slowdown = static_cast<std::size_t>(r) < slowdown_of_rank.size()
                                ? slowdown_of_rank[static_cast<std::size_t>(r)] : 1.0;
    for (const RankOpRow* row : ordered(m.ops[static_cast<std::size_t>(r)])) {
      if (row->step < warmup) continue;
      const Op& op = program.ranks[static_cast<std::size_t>(r)].at(static_cast<std::size_t>(row->op));
      if (const auto* c = op.as<ComputeOp>()) out.push_back({*c, (row->end_s - row->start_s) / slowdown});
    }
  }
  return out;
}

}  // namespace geotrain::emu
