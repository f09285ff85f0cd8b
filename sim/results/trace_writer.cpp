#include "sim/results/trace_writer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <nlohmann/json.hpp>
#include <string>

namespace geotrain::results {

namespace {

std::string microseconds(double s, TimeFormat f) {
  return f == TimeFormat::shortest ? fmt::format("{}", s * 1e6) : fmt::format("{:.3f}", s * 1e6);
}

}  // namespace

TraceWriter::TraceWriter(std::ostream& out, const Program& program, TimeFormat times)
    : out_(out), program_(program), times_(times) {
  out_ << "{\"displayTimeUnit\": \"ms\", \"traceEvents\": [\n";
  for (int r = 0; r < program_.world_size; ++r) {
    separate();
    fmt::print(out_, R"j({{"ph": "M", "name": "process_name", "pid": {}, "args": {{"name": "rank {} (device {})"}}}})j",
               r, r, program_.device_of_rank[static_cast<std::size_t>(r)]);
    fmt::print(out_, ",\n" R"j({{"ph": "M", "name": "thread_name", "pid": {}, "tid": 0, "args": {{"name": "ops"}}}})j", r);
    fmt::print(out_, ",\n" R"j({{"ph": "M", "name": "thread_name", "pid": {}, "tid": 1, "args": {{"name": "in flight"}}}})j", r);
  }
}

void TraceWriter::separate() {
  if (!first_) out_ << ",\n";
  first_ = false;
}

void TraceWriter::add(const OpRow& row) {
  const Op& op = program_.ranks.at(static_cast<std::size_t>(row.rank)).at(row.op);
  separate();
  // idle_s only where the executor knows it; bytes_sent is null where it could not be counted.
  const std::string idle = row.idle_s ? fmt::format(R"j(, "idle_s": {})j", *row.idle_s) : std::string();
  fmt::print(out_,
             R"j({{"ph": "X", "name": {}, "cat": "{}", "pid": {}, "tid": {}, "ts": {}, "dur": {}, )j"
             R"j("args": {{"iteration": {}, "op": {}, "bytes_sent": {}{}}}}})j",
             nlohmann::json(op.label).dump(), op_type_name(op), row.rank, op.nonblocking ? 1 : 0,
             microseconds(row.start_s, times_), microseconds(row.end_s - row.start_s, times_),
             row.iteration, row.op,
             row.bytes_sent ? fmt::format("{}", *row.bytes_sent) : std::string("null"), idle);
}

void TraceWriter::finish() { out_ << "\n]}\n"; }

}  // namespace geotrain::results
