#include "emu/worker/measurements.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/common/error.hpp"

namespace geotrain {

namespace {

// Labels are free text: quote them the CSV way.
std::string csv_quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string number(double x) { return std::isnan(x) ? std::string() : fmt::format("{:.9g}", x); }

}  // namespace

Measurements::Measurements(int rank, std::vector<std::string> labels,
                           std::vector<std::string> kinds)
    : rank_(rank), labels_(std::move(labels)), kinds_(std::move(kinds)) {}

void Measurements::write(const std::string& dir) const {
  std::filesystem::create_directories(dir);
  const auto ops_path = fmt::format("{}/ops.csv", dir);
  std::ofstream ops(ops_path);
  ops << "rank,op,label,kind,start_s,end_s,bytes,step,cpu_s\n";
  for (const auto& r : ops_)
    ops << fmt::format("{},{},{},{},{:.9f},{:.9f},{},{},{}\n", rank_, r.op, csv_quote(labels_.at(r.op)),
                       kinds_.at(r.op), r.start_s, r.end_s, r.bytes < 0 ? "" : number(r.bytes), r.step,
                       number(r.cpu_s));
  const auto it_path = fmt::format("{}/iterations.csv", dir);
  std::ofstream its(it_path);
  its << "step,time_s,loss,tokens_per_s,host_busy_s\n";
  for (const auto& r : iterations_)
    its << fmt::format("{},{:.9f},{},{},{}\n", r.step, r.time_s, number(r.loss), number(r.tokens_per_s),
                       number(r.host_busy_s));
  if (!ops || !its) throw Error(fmt::format("cannot write {} / {}", ops_path, it_path));
  if (dynamic_.empty()) return;
  const auto dyn_path = fmt::format("{}/dynamic.csv", dir);
  std::ofstream dyn(dyn_path);
  dyn << "step,op,rule,round,members,decided_s\n";
  for (const auto& r : dynamic_)
    dyn << fmt::format("{},{},{},{},{},{:.9f}\n", r.step, r.op, r.rule, r.round,
                       fmt::join(r.members, ";"), r.decided_s);
  if (!dyn) throw Error("cannot write " + dyn_path);
}

}  // namespace geotrain
