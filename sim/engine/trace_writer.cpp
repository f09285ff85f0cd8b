#include "sim/engine/trace_writer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <nlohmann/json.hpp>

namespace geotrain::engine {

namespace {


std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

}  // namespace

void write_trace(const Program& program, const SimulationResult& result, std::ostream& out) {
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
  const OpRecorder& rec = result.records;
  for (int r = 0; r < program.world_size; ++r)
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const Op& op = program.ranks[static_cast<std::size_t>(r)][i];
        const OpRecord& o = rec.at(r, it, static_cast<int>(i));
        if (o.start_s < 0 || o.end_s < 0) continue;
        sep();
        fmt::print(out,
                   R"j({{"ph": "X", "name": {}, "cat": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, )j"
                   R"j("args": {{"iteration": {}, "op": {}, "bytes_sent": {}, "idle_s": {}}}}})j",
                   quoted(op.label), op_type_name(op), r, op.nonblocking ? 1 : 0, o.start_s * 1e6,
                   (o.end_s - o.start_s) * 1e6, it, i, o.bytes_sent, o.idle_s);
      }
  out << "\n]}\n";
}

}  // namespace geotrain::engine
