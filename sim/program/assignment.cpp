#include "sim/program/assignment.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <random>

#include "sim/common/error.hpp"

namespace geotrain {

std::vector<std::vector<int>> Assignment::stage_groups() const {
  std::vector<std::vector<int>> groups(static_cast<std::size_t>(stages));
  for (int s = 0; s < stages; ++s)
    for (int r = 0; r < replicas; ++r) groups[static_cast<std::size_t>(s)].push_back(device(r, s));
  return groups;
}

Assignment identity_assignment(int stages, int replicas) {
  Assignment a{stages, replicas, {}};
  for (int r = 0; r < replicas; ++r) {
    a.device_of.emplace_back();
    for (int s = 0; s < stages; ++s) a.device_of.back().push_back(r * stages + s);
  }
  return a;
}

Assignment random_assignment(int stages, int replicas, std::uint64_t seed) {
  std::vector<int> perm(static_cast<std::size_t>(stages * replicas));
  std::iota(perm.begin(), perm.end(), 0);
  // std::shuffle's output is implementation-defined; a hand-rolled Fisher-Yates over mt19937_64
  // keeps assignments identical across standard libraries.
  std::mt19937_64 rng(seed);
  for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng() % i]);
  Assignment a{stages, replicas, {}};
  for (int r = 0; r < replicas; ++r) {
    a.device_of.emplace_back();
    for (int s = 0; s < stages; ++s)
      a.device_of.back().push_back(perm[static_cast<std::size_t>(r * stages + s)]);
  }
  return a;
}

namespace {

using nlohmann::json;

// Checks an array of arrays of device ids: shape rows x cols, ids known and used once.
void check_table(const json& table, const std::string& key, std::size_t rows, std::size_t cols,
                 int devices, const std::string& file, std::vector<std::string>& problems) {
  if (!table.is_array() || table.size() != rows) {
    problems.push_back(fmt::format("{}: {}: expected a list of {} lists, found {}", file, key, rows,
                                   table.is_array() ? fmt::format("{} entries", table.size()) : table.type_name()));
    return;
  }
  std::vector<int> seen_at(static_cast<std::size_t>(devices), -1);
  for (std::size_t i = 0; i < rows; ++i) {
    if (!table[i].is_array() || table[i].size() != cols) {
      problems.push_back(fmt::format("{}: {}[{}]: expected {} device ids, found {}", file, key, i, cols,
                                     table[i].is_array() ? std::to_string(table[i].size()) : table[i].type_name()));
      continue;
    }
    for (std::size_t j = 0; j < cols; ++j) {
      const json& v = table[i][j];
      if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() >= devices) {
        problems.push_back(fmt::format("{}: {}[{}][{}] = {}: no such device (expected 0 to {})", file,
                                       key, i, j, v.dump(), devices - 1));
        continue;
      }
      const int d = v.get<int>();
      if (seen_at[static_cast<std::size_t>(d)] >= 0)
        problems.push_back(fmt::format("{}: {}[{}][{}] = {}: device listed twice (also in {}[{}])", file,
                                       key, i, j, d, key, seen_at[static_cast<std::size_t>(d)]));
      else
        seen_at[static_cast<std::size_t>(d)] = static_cast<int>(i);
    }
  }
}

}  // namespace

Assignment read_assignment(const std::string& path, int stages, int replicas, int devices) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open assignment file", path));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: malformed JSON: {}", path, e.what()));
  }
  std::vector<std::string> problems;
  if (!doc.is_object() || !doc.contains("groups"))
    throw InputError(fmt::format("{}: expected an object with \"groups\" (and optionally \"pipelines\")", path));
  if (stages * replicas != devices)
    problems.push_back(fmt::format("{}: {} stages x {} replicas does not cover {} devices", path, stages,
                                   replicas, devices));
  for (const auto& [key, value] : doc.items())
    if (key != "groups" && key != "pipelines" && key != "meta")
      problems.push_back(fmt::format("{}: unknown key \"{}\" (known: groups, pipelines, meta)", path, key));
  check_table(doc["groups"], "groups", static_cast<std::size_t>(stages), static_cast<std::size_t>(replicas),
              devices, path, problems);
  const bool has_pipelines = doc.contains("pipelines");
  if (has_pipelines)
    check_table(doc["pipelines"], "pipelines", static_cast<std::size_t>(replicas),
                static_cast<std::size_t>(stages), devices, path, problems);
  if (!problems.empty()) throw InputError(problems);

  Assignment a{stages, replicas, std::vector<std::vector<int>>(static_cast<std::size_t>(replicas),
                                                               std::vector<int>(static_cast<std::size_t>(stages)))};
  if (has_pipelines) {
    for (int r = 0; r < replicas; ++r)
      for (int s = 0; s < stages; ++s)
        a.device_of[static_cast<std::size_t>(r)][static_cast<std::size_t>(s)] = doc["pipelines"][r][s].get<int>();
    // The pipelines must agree with the groups: stage s of every pipeline in one group.
    std::vector<int> group_of(static_cast<std::size_t>(devices));
    for (int g = 0; g < stages; ++g)
      for (int k = 0; k < replicas; ++k) group_of[doc["groups"][g][k].get<std::size_t>()] = g;
    for (int s = 0; s < stages; ++s)
      for (int r = 1; r < replicas; ++r)
        if (group_of[static_cast<std::size_t>(a.device(r, s))] != group_of[static_cast<std::size_t>(a.device(0, s))])
          problems.push_back(fmt::format("{}: pipelines[{}][{}] = {}: not in the same group as pipelines[0][{}] "
                                         "(every stage must be one group)",
                                         path, r, s, a.device(r, s), s));
    if (!problems.empty()) throw InputError(problems);
  } else {
    for (int s = 0; s < stages; ++s)
      for (int r = 0; r < replicas; ++r)
        a.device_of[static_cast<std::size_t>(r)][static_cast<std::size_t>(s)] = doc["groups"][s][r].get<int>();
  }
  return a;
}

std::string assignment_json(const Assignment& a) {
  json doc;
  doc["groups"] = a.stage_groups();
  doc["pipelines"] = a.device_of;
  return doc.dump() + "\n";
}

void write_assignment(const std::string& path, const Assignment& a) {
  // Write to a temporary name first so a failed run never leaves a half-written file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    if (!out) throw Error(fmt::format("{}: cannot write assignment file", path));
    out << assignment_json(a);
  }
  std::filesystem::rename(tmp, path);
}

}  // namespace geotrain
