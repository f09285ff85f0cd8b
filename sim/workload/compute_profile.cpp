#include "sim/workload/compute_profile.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/common/error.hpp"
#include "sim/common/small_math.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

using nlohmann::json;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::optional<ComputeKind> kind_named(const std::string& s) {
  for (auto k :
       {ComputeKind::forward, ComputeKind::backward, ComputeKind::optimizer, ComputeKind::other,
        ComputeKind::outer_optimizer})
    if (s == to_string(k)) return k;
  return std::nullopt;
}

double derived_flops(const Scenario& sc, const ProfileEntry& e) {
  switch (e.kind) {
    case ComputeKind::forward:
      return forward_op(sc.model, 0, 0, e.layer_begin, e.layer_end, e.sequences).flops;
    case ComputeKind::backward:
      return backward_op(sc.model, 0, 0, e.layer_begin, e.layer_end, e.sequences).flops;
    case ComputeKind::optimizer:
      return optimizer_op(sc.model, sc.training.optimizer, 0, e.layer_begin, e.layer_end).flops;
    case ComputeKind::other:
    case ComputeKind::outer_optimizer:
      return 0;
  }
  return 0;
}

// Reads one entry; appends a problem per bad field (file: ops[i].key = value: expectation).
std::optional<ProfileEntry> read_entry(const json& j, std::size_t i, const Scenario& sc,
                                       const std::string& file,
                                       std::vector<std::string>& problems) {
  const auto where = [&](const char* key) { return fmt::format("{}: ops[{}].{}", file, i, key); };
  const std::size_t before = problems.size();
  ProfileEntry e;
  if (!j.is_object()) {
    problems.push_back(fmt::format("{}: ops[{}]: expected an object", file, i));
    return std::nullopt;
  }
  const auto kind = j.contains("kind") && j["kind"].is_string()
                        ? kind_named(j["kind"].get<std::string>())
                        : std::nullopt;
  const bool known_kind = kind.has_value();
  if (!known_kind)
    problems.push_back(
        fmt::format("{} = {}: unknown kind (expected forward, backward, optimizer, other, "
                    "outer_optimizer)",
                    where("kind"), j.value("kind", json()).dump()));
  else
    e.kind = *kind;
  const auto number = [&](const char* key, bool required, double min, double max, double& out) {
    if (!j.contains(key)) {
      if (required) problems.push_back(fmt::format("{}: missing (expected a number)", where(key)));
      return;
    }
    if (!j[key].is_number() || j[key].get<double>() < min || j[key].get<double>() > max) {
      problems.push_back(fmt::format("{} = {}: expected a number from {} to {}", where(key),
                                     j[key].dump(), min, max));
      return;
    }
    out = j[key].get<double>();
  };
  double begin = 0, end = 0;
  const double layers = sc.model.layers;
  number("layer_begin", true, 0, layers - 1, begin);
  number("layer_end", true, 1, layers, end);
  number("sequences", false, 0, 1e12, e.sequences);
  number("median_s", true, 0, 1e9, e.median_s);
  number("cpu_median_s", false, 0, 1e9, e.cpu_median_s);
  number("flops",
         !known_kind || e.kind == ComputeKind::other || e.kind == ComputeKind::outer_optimizer, 0,
         1e30, e.flops);
  double stage = 0;
  number("stage", false, 0, 1e6, stage);
  e.stage = static_cast<int>(stage);
  const auto seconds_list = [&](const char* key, std::vector<double>& out) {
    if (!j.contains(key)) return;
    if (!j[key].is_array()) {
      problems.push_back(fmt::format("{} = {}: expected a list of seconds", where(key), j[key].dump()));
      return;
    }
    for (const auto& v : j[key])
      if (v.is_number()) out.push_back(v.get<double>());
  };
  seconds_list("samples_s", e.samples_s);
  seconds_list("cpu_samples_s", e.cpu_samples_s);
  // One [rank, step, op] per sample of `samples`.
  const auto site_list = [&](const char* key, std::size_t samples, std::vector<SampleSite>& out) {
    if (!j.contains(key)) {
      problems.push_back(fmt::format("{}: missing (expected one [rank, step, op] per sample, {} "
                                     "samples)", where(key), samples));
      return;
    }
    const json& sites = j[key];
    const auto is_site = [](const json& s) {
      return s.is_array() && s.size() == 3 &&
             std::all_of(s.begin(), s.end(), [](const json& v) {
               return v.is_number_integer() && v.get<long long>() >= 0 &&
                      v.get<long long>() <= 1'000'000'000;
             });
    };
    if (!sites.is_array() || sites.size() != samples ||
        !std::all_of(sites.begin(), sites.end(), is_site)) {
      problems.push_back(fmt::format("{}: expected one [rank, step, op] of integers >= 0 per "
                                     "sample ({} samples)",
                                     where(key), samples));
      return;
    }
    for (const auto& s : sites) out.push_back({s[0].get<int>(), s[1].get<int>(), s[2].get<int>()});
  };
  if (j.contains("sample_sites")) site_list("sample_sites", e.samples_s.size(), e.sample_sites);
  seconds_list("warmup_samples_s", e.warmup_samples_s);
  seconds_list("warmup_cpu_samples_s", e.warmup_cpu_samples_s);
  if (j.contains("warmup_samples_s"))  // the sites say which step each replays: required
    site_list("warmup_sample_sites", e.warmup_samples_s.size(), e.warmup_sample_sites);
  if (j.contains("warmup_cpu_samples_s") && e.warmup_cpu_samples_s.size() != e.warmup_samples_s.size())
    problems.push_back(fmt::format("{}: {} values (expected one per warmup_samples_s, {})",
                                   where("warmup_cpu_samples_s"), e.warmup_cpu_samples_s.size(),
                                   e.warmup_samples_s.size()));
  e.layer_begin = static_cast<int>(begin), e.layer_end = static_cast<int>(end);
  if (problems.size() == before && e.layer_begin >= e.layer_end)
    problems.push_back(
        fmt::format("{}: layer range [{}, {}) is empty (expected layer_begin < layer_end)",
                    where("layer_end"), e.layer_begin, e.layer_end));
  if (problems.size() != before) return std::nullopt;
  if (!j.contains("flops")) e.flops = derived_flops(sc, e);
  return e;
}

// [[rank, step, op], ...]: the file's form of sample_sites and warmup_sample_sites.
json sites_json(const std::vector<SampleSite>& sites) {
  json out = json::array();
  for (const auto& s : sites) out.push_back({s.rank, s.step, s.op});
  return out;
}

}  // namespace

bool ProfileEntry::measures(const ComputeOp& op) const {
  return kind == op.kind && stage == op.stage && layer_begin == op.layer_begin && layer_end == op.layer_end &&
         same(sequences, op.sequences) && (op.kind != ComputeKind::other || same(flops, op.flops));
}

ComputeOp ProfileEntry::op() const {
  ComputeOp c;
  c.kind = kind, c.stage = stage, c.layer_begin = layer_begin, c.layer_end = layer_end;
  c.sequences = sequences, c.flops = flops;
  return c;
}

std::vector<ProfileEntry> summarize_samples(const std::vector<ProfileSample>& samples) {
  std::vector<ProfileEntry> entries;
  for (const auto& s : samples) {
    if (s.warmup) continue;
    const ComputeOp& op = s.op;
    auto it = std::find_if(entries.begin(), entries.end(), [&](const ProfileEntry& e) { return e.measures(op); });
    if (it == entries.end()) {
      ProfileEntry e;
      e.kind = op.kind, e.stage = op.stage, e.sequences = op.sequences, e.flops = op.flops;
      e.layer_begin = op.layer_begin, e.layer_end = op.layer_end;
      it = entries.insert(entries.end(), std::move(e));
    }
    it->samples_s.push_back(s.seconds);
    if (std::isfinite(s.cpu_seconds)) it->cpu_samples_s.push_back(s.cpu_seconds);
    if (s.site.known()) it->sample_sites.push_back(s.site);
  }
  for (auto& e : entries) {
    e.median_s = median(e.samples_s);
    // CPU times only when every execution has one (older workers wrote none).
    if (e.cpu_samples_s.size() == e.samples_s.size()) e.cpu_median_s = median(e.cpu_samples_s);
    else e.cpu_samples_s.clear();
    if (e.sample_sites.size() != e.samples_s.size()) e.sample_sites.clear();
  }
  for (const auto& s : samples) {
    if (!s.warmup || !s.site.known()) continue;
    auto it = std::find_if(entries.begin(), entries.end(), [&](const ProfileEntry& e) { return e.measures(s.op); });
    if (it == entries.end()) continue;
    it->warmup_samples_s.push_back(s.seconds);
    it->warmup_sample_sites.push_back(s.site);
    if (std::isfinite(s.cpu_seconds)) it->warmup_cpu_samples_s.push_back(s.cpu_seconds);
  }
  for (auto& e : entries)
    if (!e.has_cpu_time() || e.warmup_cpu_samples_s.size() != e.warmup_samples_s.size())
      e.warmup_cpu_samples_s.clear();
  return entries;
}

ProfileMeasuredAt measured_at_of(const Scenario& sc) {
  ProfileMeasuredAt m;
  m.layers = sc.model.layers, m.d_model = sc.model.d_model, m.heads = sc.model.heads;
  m.seq_len = sc.model.seq_len, m.vocab = sc.model.vocab;
  m.dtype = dtype_name(sc.model.dtype);
  m.optimizer = to_string(sc.training.optimizer);
  return m;
}

std::string measured_at_mismatch(const ProfileMeasuredAt& m, const Scenario& sc) {
  const ProfileMeasuredAt want = measured_at_of(sc);
  std::vector<std::string> diffs;
  const auto number = [&](const char* key, int had, int has) {
    if (had != has) diffs.push_back(fmt::format("{} {}, the scenario has {}", key, had, has));
  };
  number("layers", m.layers, want.layers);
  number("d_model", m.d_model, want.d_model);
  number("heads", m.heads, want.heads);
  number("seq_len", m.seq_len, want.seq_len);
  number("vocab", m.vocab, want.vocab);
  if (m.dtype != want.dtype) diffs.push_back(fmt::format("dtype {}, the scenario has {}", m.dtype, want.dtype));
  if (m.optimizer != want.optimizer)
    diffs.push_back(fmt::format("optimizer {}, the scenario has {}", m.optimizer, want.optimizer));
  std::string out;
  for (const auto& d : diffs) out += (out.empty() ? "" : "; ") + d;
  return out;
}

std::string compute_profile_json(const std::vector<ProfileEntry>& entries, const std::string& model,
                                 const std::string& device_profile, const ProfileHost* host,
                                 const ProfileMeasuredAt* measured_at, const DeviceEfficiency* efficiency) {
  json ops = json::array();
  for (const auto& e : entries) {
    json op{{"kind", to_string(e.kind)},
            {"stage", e.stage},
            {"layer_begin", e.layer_begin},
            {"layer_end", e.layer_end},
            {"sequences", e.sequences},
            {"flops", e.flops},
            {"median_s", e.median_s},
            {"samples_s", e.samples_s}};
    if (e.has_cpu_time()) {
      op["cpu_median_s"] = e.cpu_median_s;
      op["cpu_samples_s"] = e.cpu_samples_s;
    }
    if (!e.sample_sites.empty() && e.sample_sites.size() == e.samples_s.size()) {
      op["sample_sites"] = sites_json(e.sample_sites);
    }
    if (!e.warmup_samples_s.empty() && e.warmup_sample_sites.size() == e.warmup_samples_s.size()) {
      op["warmup_samples_s"] = e.warmup_samples_s;
      if (e.warmup_cpu_samples_s.size() == e.warmup_samples_s.size())
        op["warmup_cpu_samples_s"] = e.warmup_cpu_samples_s;
      op["warmup_sample_sites"] = sites_json(e.warmup_sample_sites);
    }
    ops.push_back(std::move(op));
  }
  json doc{{"format", "geotrain-compute-profile"},
           {"version", 1},
           {"model", model},
           {"device_profile", device_profile},
           {"ops", ops}};
  if (host)
    doc["host"] = {{"cores", host->cores},
                   {"span_s", host->span_s},
                   {"busy_core_s", host->busy_core_s},
                   {"compute_core_s", host->compute_core_s},
                   {"background_cores", host->background_cores}};
  if (measured_at) {
    const ProfileMeasuredAt& m = *measured_at;
    doc["measured_at"] = {{"by", m.by},
                          {"model",
                           {{"layers", m.layers},
                            {"d_model", m.d_model},
                            {"heads", m.heads},
                            {"seq_len", m.seq_len},
                            {"vocab", m.vocab},
                            {"dtype", m.dtype}}},
                          {"optimizer", m.optimizer},
                          {"device", m.device},
                          {"torch_threads", m.torch_threads},
                          {"torch", m.torch},
                          {"host", m.host},
                          {"date", m.date},
                          {"repeat", m.repeat},
                          {"warmup", m.warmup},
                          {"min_seconds", m.min_seconds},
                          {"concurrent", m.concurrent}};
  }
  if (efficiency) {
    const DeviceEfficiency& e = *efficiency;
    doc["device_efficiency"] = {{"profile", e.profile},
                                {"like", e.like},
                                {"dtype", e.dtype},
                                {"achieved_flops", e.achieved_flops},
                                {"peak_flops", e.peak_flops},
                                {"efficiency", e.efficiency},
                                {"ops", e.ops}};
  }
  return doc.dump(1) + "\n";
}

void write_compute_profile(const std::string& path, const std::vector<ProfileEntry>& entries,
                           const std::string& model, const std::string& device_profile,
                           const ProfileHost* host, const ProfileMeasuredAt* measured_at,
                           const DeviceEfficiency* efficiency) {
  std::ofstream out(path);
  out << compute_profile_json(entries, model, device_profile, host, measured_at, efficiency);
  if (!out) throw SystemError("write " + path, errno, "cannot write the compute profile");
}

std::vector<ProfileEntry> read_compute_profile(const std::string& file, const Scenario& sc) {
  std::ifstream in(file);
  if (!in) throw InputError(fmt::format("{}: cannot open compute profile", file));
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: malformed JSON: {}", file, e.what()));
  }
  if (!doc.is_object() || doc.value("format", "") != "geotrain-compute-profile" ||
      !doc.contains("ops") || !doc["ops"].is_array())
    throw InputError(fmt::format(
        "{}: expected {{\"format\": \"geotrain-compute-profile\", \"ops\": [...]}}", file));
  std::vector<std::string> problems;
  std::vector<ProfileEntry> entries;
  for (std::size_t i = 0; i < doc["ops"].size(); ++i)
    if (auto e = read_entry(doc["ops"][i], i, sc, file, problems)) entries.push_back(*e);
  if (!problems.empty()) throw InputError(problems);
  return entries;
}

std::optional<ProfileHost> read_profile_host(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open compute profile", path));
  const json doc = json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("host")) return std::nullopt;
  const json& h = doc["host"];
  const auto field = [&](const char* key) {
    if (!h.is_object() || !h.contains(key) || !h[key].is_number() || h[key].get<double>() < 0)
      throw InputError(fmt::format("{}: host.{} = {}: expected a number >= 0", path, key,
                                   h.is_object() && h.contains(key) ? h[key].dump() : "missing"));
    return h[key].get<double>();
  };
  ProfileHost host;
  host.cores = static_cast<int>(field("cores"));
  host.span_s = field("span_s");
  host.busy_core_s = field("busy_core_s");
  host.compute_core_s = field("compute_core_s");
  host.background_cores = field("background_cores");
  return host;
}

std::optional<ProfileMeasuredAt> read_profile_measured_at(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open compute profile", path));
  const json doc = json::parse(in, nullptr, false);
  if (!doc.is_object() || !doc.contains("measured_at")) return std::nullopt;
  const json& m = doc["measured_at"];
  const json model = m.is_object() && m.contains("model") ? m["model"] : json();
  std::vector<std::string> problems;
  const auto integer = [&](const json& obj, const char* prefix, const char* key, int& out) {
    if (obj.is_object() && obj.contains(key) && obj[key].is_number_integer() && obj[key].get<long long>() > 0 &&
        obj[key].get<long long>() <= 1'000'000'000) {
      out = obj[key].get<int>();
      return;
    }
    problems.push_back(fmt::format("{}: measured_at.{}{} = {}: expected an integer > 0", path, prefix, key,
                                   obj.is_object() && obj.contains(key) ? obj[key].dump() : "missing"));
  };
  const auto text = [&](const json& obj, const char* prefix, const char* key, std::string& out) {
    if (obj.is_object() && obj.contains(key) && obj[key].is_string()) {
      out = obj[key].get<std::string>();
      return;
    }
    problems.push_back(fmt::format("{}: measured_at.{}{} = {}: expected a string", path, prefix, key,
                                   obj.is_object() && obj.contains(key) ? obj[key].dump() : "missing"));
  };
  ProfileMeasuredAt r;
  integer(model, "model.", "layers", r.layers);
  integer(model, "model.", "d_model", r.d_model);
  integer(model, "model.", "heads", r.heads);
  integer(model, "model.", "seq_len", r.seq_len);
  integer(model, "model.", "vocab", r.vocab);
  text(model, "model.", "dtype", r.dtype);
  text(m, "", "optimizer", r.optimizer);
  // Informational: read when present.
  if (m.is_object()) try {
    r.by = m.value("by", r.by);
    r.device = m.value("device", "");
    r.torch = m.value("torch", "");
    r.host = m.value("host", "");
    r.date = m.value("date", "");
    r.torch_threads = m.value("torch_threads", 0);
    r.repeat = m.value("repeat", 0);
    r.warmup = m.value("warmup", 0);
    r.min_seconds = m.value("min_seconds", 0.0);
    r.concurrent = m.value("concurrent", 1);  // profiles from before --concurrent: one worker
  } catch (const json::exception& e) {
    problems.push_back(fmt::format("{}: measured_at: {}", path, e.what()));
  }
  if (!problems.empty()) throw InputError(problems);
  return r;
}

}  // namespace geotrain
