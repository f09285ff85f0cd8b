#include "sim/results/summary_reader.hpp"

#include <fmt/format.h>

#include <fstream>

#include "sim/common/error.hpp"

namespace geotrain::results {

nlohmann::json read_summary(const std::string& dir) {
  const std::string path = dir + "/summary.json";
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open (expected the summary.json of a run)", path));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not JSON ({})", path, e.what()));
  }
}

std::string summary_executor(const nlohmann::json& summary) {
  if (!summary.is_object()) return "";
  const std::string format = summary.value("format", "");
  const std::string head = "geotrain-", tail = "-summary";
  if (format.size() <= head.size() + tail.size() || format.rfind(head, 0) != 0 ||
      format.compare(format.size() - tail.size(), tail.size(), tail) != 0)
    return "";
  return format.substr(head.size(), format.size() - head.size() - tail.size());
}

bool is_measuring_executor(const std::string& executor) { return executor == "emu" || executor == "real"; }

}  // namespace geotrain::results
