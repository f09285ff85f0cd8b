#include "real/host_state.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/common/error.hpp"

namespace geotrain::real {

namespace {

constexpr int kStateFormat = 1;

}  // namespace

std::string state_dir(const HostSpec& host) { return host.workdir + "/" + kStateDirName; }

std::string state_text(const HostState& s) {
  nlohmann::json j;
  j["geotrain_state"] = kStateFormat;
  j["host"] = s.host;
  j["scenario"] = s.scenario;
  j["interface"] = s.interface;
  j["variant"] = s.variant;
  j["geotrain_version"] = s.geotrain_version;
  j["undo"] = s.undo;
  j["delayer_tag"] = s.delayer_tag;
  nlohmann::json sysctls = nlohmann::json::array();
  for (const auto& [name, value] : s.sysctls) sysctls.push_back({{"name", name}, {"value", value}});
  j["sysctls"] = sysctls;
  j["replaced_qdisc"] = s.replaced_qdisc;
  return j.dump(2) + "\n";
}

HostState parse_state(const std::string& text, const std::string& where) {
  try {
    const auto j = nlohmann::json::parse(text);
    if (j.value("geotrain_state", 0) != kStateFormat)
      throw Error(fmt::format("geotrain_state is not {} (written by another geotrain version?)", kStateFormat));
    HostState s;
    s.host = j.at("host").get<std::string>();
    s.scenario = j.at("scenario").get<std::string>();
    s.interface = j.at("interface").get<std::string>();
    s.variant = j.at("variant").get<std::string>();
    s.geotrain_version = j.at("geotrain_version").get<std::string>();
    s.undo = j.at("undo").get<std::vector<std::vector<std::string>>>();
    s.delayer_tag = j.at("delayer_tag").get<std::string>();
    for (const auto& e : j.at("sysctls")) s.sysctls.emplace_back(e.at("name").get<std::string>(), e.at("value").get<std::string>());
    s.replaced_qdisc = j.at("replaced_qdisc").get<std::string>();
    for (const auto& cmd : s.undo)
      if (cmd.empty()) throw Error("undo: an empty command");
    return s;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: state file: {}", where, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: state file: {}", where, e.what()));
  }
}

std::vector<WorkerRecord> parse_workers(const std::string& text, const std::string& where) {
  try {
    std::vector<WorkerRecord> out;
    for (const auto& e : nlohmann::json::parse(text)) {
      const int pid = e.at("pid").get<int>();
      if (pid <= 1) throw Error(fmt::format("pid {} (expected a process id above 1)", pid));
      out.push_back({e.at("rank").get<int>(), pid});
    }
    return out;
  } catch (const nlohmann::json::exception& e) {
    throw Error(fmt::format("{}: workers file: {}", where, e.what()));
  } catch (const Error& e) {
    throw Error(fmt::format("{}: workers file: {}", where, e.what()));
  }
}

std::string workers_text(const std::vector<WorkerRecord>& workers) {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& w : workers) j.push_back({{"rank", w.rank}, {"pid", w.pid}});
  return j.dump() + "\n";
}

}  // namespace geotrain::real
