#include "sim/sweep/point_result.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/sweep/atomic_file.hpp"

namespace geotrain::sweep {

namespace {

nlohmann::ordered_json to_json(const PointResult& r) {
  nlohmann::ordered_json j;
  j["hash"] = r.hash;
  j["point"] = r.point;
  j["strategy"] = r.strategy;
  j["values"] = r.values;
  j["ok"] = r.ok;
  if (!r.ok) j["reason"] = r.reason;
  j["iteration_time_s"] = r.iteration_time_s;
  j["tokens_per_s"] = r.tokens_per_s;
  j["samples_per_s"] = r.samples_per_s;
  j["bytes_per_step"] = r.bytes_per_step;
  j["compute_share"] = r.compute_share;
  return j;
}

}  // namespace

std::string result_path(const std::string& points_dir, const std::string& hash) {
  return points_dir + "/" + hash + ".json";
}

void write_result(const std::string& points_dir, const PointResult& r) {
  write_text_atomically(result_path(points_dir, r.hash), to_json(r).dump(1) + "\n");
}

std::optional<PointResult> read_result(const std::string& points_dir, const std::string& hash) {
  std::ifstream in(result_path(points_dir, hash));
  if (!in) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(in);
    PointResult r;
    r.hash = j.at("hash").get<std::string>();
    if (r.hash != hash) return std::nullopt;
    r.point = j.at("point").get<std::size_t>();
    r.strategy = j.at("strategy").get<std::string>();
    r.values = j.at("values").get<std::vector<std::string>>();
    r.ok = j.at("ok").get<bool>();
    if (!r.ok) r.reason = j.at("reason").get<std::string>();
    r.iteration_time_s = j.at("iteration_time_s").get<double>();
    r.tokens_per_s = j.at("tokens_per_s").get<double>();
    r.samples_per_s = j.at("samples_per_s").get<double>();
    r.bytes_per_step = j.at("bytes_per_step").get<double>();
    r.compute_share = j.at("compute_share").get<double>();  // absent (an older file): rerun it
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace geotrain::sweep
