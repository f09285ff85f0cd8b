#include "emu/worker/profile_ops.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/common/error.hpp"
#include "sim/common/small_math.hpp"

namespace geotrain {

namespace {

using nlohmann::json;

json read_json_file(const std::string& path, const char* format) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", path));
  const json doc = json::parse(in, nullptr, false);
  if (!doc.is_object() || doc.value("format", "") != format || !doc.contains("ops") || !doc["ops"].is_array())
    throw InputError(fmt::format("{}: expected {{\"format\": \"{}\", \"ops\": [...]}}", path, format));
  return doc;
}

void write_json_file(const json& doc, const std::string& path) {
  std::ofstream out(path);
  out << doc.dump(1) << '\n';
  if (!out) throw Error("cannot write " + path);
}

ProfileOpSite site_of(const json& j, std::size_t i, const Program& program, const std::string& path) {
  const bool ints = j.is_object() && j.contains("rank") && j["rank"].is_number_integer() && j.contains("op") &&
                    j["op"].is_number_integer();
  const int rank = ints ? j["rank"].get<int>() : -1;
  const int op = ints ? j["op"].get<int>() : -1;
  const bool is_compute = rank >= 0 && rank < static_cast<int>(program.ranks.size()) && op >= 0 &&
                          op < static_cast<int>(program.ranks[static_cast<std::size_t>(rank)].size()) &&
                          program.ranks[static_cast<std::size_t>(rank)][static_cast<std::size_t>(op)].as<ComputeOp>();
  if (!is_compute)
    throw InputError(fmt::format("{}: ops[{}] = {}: expected {{\"rank\", \"op\"}} of a Compute op of the Program",
                                 path, i, j.dump()));
  return {rank, op};
}

std::vector<double> seconds_of(const json& j, const char* key) {
  std::vector<double> out;
  if (j.contains(key) && j[key].is_array())
    for (const auto& v : j[key])
      if (v.is_number()) out.push_back(v.get<double>());
  return out;
}

}  // namespace

std::vector<ProfileOpSite> distinct_compute_ops(const Program& program) {
  std::vector<ProfileOpSite> sites;
  std::vector<const ComputeOp*> seen;
  for (std::size_t r = 0; r < program.ranks.size(); ++r)
    for (std::size_t i = 0; i < program.ranks[r].size(); ++i) {
      const auto* c = program.ranks[r][i].as<ComputeOp>();
      if (!c) continue;
      const bool known = std::any_of(seen.begin(), seen.end(), [&](const ComputeOp* s) {
        return s->kind == c->kind && s->stage == c->stage && s->layer_begin == c->layer_begin &&
               s->layer_end == c->layer_end && same(s->sequences, c->sequences) &&
               (c->kind != ComputeKind::other || same(s->flops, c->flops));
      });
      if (known) continue;
      seen.push_back(c);
      sites.push_back({static_cast<int>(r), static_cast<int>(i)});
    }
  return sites;
}

void write_profile_request(const ProfileRequest& request, const std::string& path) {
  json ops = json::array();
  for (const auto& s : request.ops) ops.push_back({{"rank", s.rank}, {"op", s.op}});
  write_json_file({{"format", "geotrain-profile-ops"},
                   {"version", 1},
                   {"repeat", request.repeat},
                   {"warmup", request.warmup},
                   {"min_seconds", request.min_seconds},
                   {"ops", ops}},
                  path);
}

ProfileRequest read_profile_request(const std::string& path, const Program& program) {
  const json doc = read_json_file(path, "geotrain-profile-ops");
  ProfileRequest r;
  const auto count = [&](const char* key, int min, int& out) {
    if (!doc.contains(key) || !doc[key].is_number_integer() || doc[key].get<long long>() < min ||
        doc[key].get<long long>() > 100000)
      throw InputError(fmt::format("{}: {}: expected an integer from {} to 100000", path, key, min));
    out = doc[key].get<int>();
  };
  count("repeat", 1, r.repeat);
  count("warmup", 0, r.warmup);
  if (doc.contains("min_seconds")) {  // optional: requests before it had none
    const auto& m = doc["min_seconds"];
    if (!m.is_number() || m.get<double>() < 0 || m.get<double>() > 86400)
      throw InputError(fmt::format("{}: min_seconds: expected seconds from 0 to 86400", path));
    r.min_seconds = m.get<double>();
  }
  for (std::size_t i = 0; i < doc["ops"].size(); ++i) r.ops.push_back(site_of(doc["ops"][i], i, program, path));
  return r;
}

void write_profile_times(const ProfileTimes& times, const std::string& path) {
  json ops = json::array();
  for (const auto& t : times.ops)
    ops.push_back({{"rank", t.site.rank},
                   {"op", t.site.op},
                   {"samples_s", t.samples_s},
                   {"cpu_samples_s", t.cpu_samples_s}});
  write_json_file({{"format", "geotrain-profile-times"},
                   {"version", 1},
                   {"device", times.device},
                   {"torch", times.torch},
                   {"threads", times.threads},
                   {"ops", ops}},
                  path);
}

ProfileTimes read_profile_times(const std::string& path, const Program& program) {
  const json doc = read_json_file(path, "geotrain-profile-times");
  ProfileTimes t;
  t.device = doc.value("device", "");
  t.torch = doc.value("torch", "");
  t.threads = doc.contains("threads") && doc["threads"].is_number_integer() ? doc["threads"].get<int>() : 0;
  for (std::size_t i = 0; i < doc["ops"].size(); ++i) {
    const json& j = doc["ops"][i];
    ProfileOpTimes o;
    o.site = site_of(j, i, program, path);
    o.samples_s = seconds_of(j, "samples_s");
    o.cpu_samples_s = seconds_of(j, "cpu_samples_s");
    t.ops.push_back(std::move(o));
  }
  return t;
}

}  // namespace geotrain
