#include "emu/net/state_store.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json to_json(const ClusterRecord& r) {
  json delayers = json::array();
  for (const auto& d : r.delayers) delayers.push_back({{"netns", d.netns}, {"pid", d.pid}});
  return {{"cluster", r.cluster}, {"scenario", r.scenario}, {"subnet", r.subnet},
          {"ranks", r.ranks}, {"backend", r.backend}, {"namespaces", r.namespaces},
          {"delayers", delayers}, {"complete", r.complete}, {"created_unix_s", r.created_unix_s},
          {"owner", r.owner ? json{{"pid", r.owner->pid}, {"start_ticks", r.owner->start_ticks},
                                   {"pid_namespace", r.owner->pid_namespace}}
                            : json(nullptr)}};
}

ClusterRecord from_json(const json& j) {
  ClusterRecord r;
  r.cluster = j.at("cluster").get<std::string>();
  r.scenario = j.value("scenario", "");
  r.subnet = j.value("subnet", "");
  r.ranks = j.value("ranks", 0);
  r.backend = j.value("backend", "");
  r.namespaces = j.value("namespaces", std::vector<std::string>{});
  for (const auto& d : j.value("delayers", json::array()))
    r.delayers.push_back({d.at("netns").get<std::string>(), d.at("pid").get<pid_t>()});
  r.complete = j.value("complete", false);
  r.created_unix_s = j.value("created_unix_s", 0LL);
  if (const auto o = j.find("owner"); o != j.end() && o->is_object())
    r.owner = ProcessIdentity{o->at("pid").get<pid_t>(), o->at("start_ticks").get<unsigned long long>(),
                              o->value("pid_namespace", 0ULL)};
  return r;
}

}  // namespace

StateStore::StateStore(std::string dir) : dir_(std::move(dir)) {
  if (dir_.empty()) {
    const char* env = std::getenv("GEOTRAIN_STATE_DIR");
    dir_ = env != nullptr && *env != '\0' ? env : "/run/geotrain";
  }
}

void StateStore::save(const ClusterRecord& record) const {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  const std::string path = path_of(record.cluster), tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << to_json(record).dump(2) << "\n";
    if (!out) throw SystemError("write " + tmp, 1, "cannot write the cluster state file");
  }
  fs::rename(tmp, path, ec);
  if (ec) throw SystemError("rename " + tmp, ec.value(), ec.message());
}

std::optional<ClusterRecord> StateStore::load(const std::string& cluster) const {
  std::ifstream in(path_of(cluster));
  if (!in) return std::nullopt;
  try {
    return from_json(json::parse(in));
  } catch (const std::exception&) {
    // A record cut short by a crash still names its cluster, which is all teardown needs.
    ClusterRecord r;
    r.cluster = cluster;
    return r;
  }
}

std::vector<ClusterRecord> StateStore::load_all() const {
  std::vector<ClusterRecord> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    if (entry.path().extension() != ".json" || entry.path().string().ends_with(".stats.json")) continue;
    if (auto r = load(entry.path().stem().string())) out.push_back(*r);
  }
  return out;
}

void StateStore::remove(const std::string& cluster) const {
  std::error_code ec;
  fs::remove(path_of(cluster), ec);
  fs::remove(path_of(cluster) + ".tmp", ec);  // a save cut short by kill -9
  for (const auto& entry : fs::directory_iterator(dir_, ec)) {
    const std::string name = entry.path().filename().string();
    // Delayer logs and stats of this cluster's namespaces: gt-<cluster>-<rank>.*
    if (name.rfind("gt-" + cluster + "-", 0) == 0) fs::remove(entry.path(), ec);
  }
}

}  // namespace geotrain::emu
