#include "sim/results/ops_csv_writer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <string>

#include "sim/common/csv.hpp"

namespace geotrain::results {

namespace {

std::string seconds(double x, TimeFormat f) {
  return f == TimeFormat::shortest ? fmt::format("{}", x) : fmt::format("{:.9f}", x);
}

std::string optional_number(const std::optional<double>& x) {
  return x ? fmt::format("{}", *x) : std::string();
}

}  // namespace

OpsCsvWriter::OpsCsvWriter(std::ostream& out, const Program& program, TimeFormat times)
    : out_(out), program_(program), times_(times) {
  out_ << "rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,idle_s,"
          "bytes_sent,peer,group\n";
}

void OpsCsvWriter::add(const OpRow& row) {
  const auto r = static_cast<std::size_t>(row.rank);
  const Op& op = program_.ranks.at(r).at(row.op);
  std::string peer, group;
  if (const auto* s = op.as<SendOp>()) peer = std::to_string(s->peer);
  if (const auto* v = op.as<RecvOp>()) peer = std::to_string(v->peer);
  if (const auto* c = op.as<CollectiveOp>()) group = program_.group(c->group).name;
  fmt::print(out_, "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", row.rank, program_.device_of_rank[r],
             row.iteration, row.op, op_type_name(op), csv_field(op.label), op.nonblocking ? 1 : 0,
             seconds(row.start_s, times_), seconds(row.end_s, times_),
             seconds(row.end_s - row.start_s, times_), optional_number(row.idle_s),
             optional_number(row.bytes_sent), peer, csv_field(group));
}

}  // namespace geotrain::results
