#include "sim/program/program_json.hpp"

#include <array>
#include <fstream>
#include <utility>

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/common/overloaded.hpp"
#include "sim/program/compression.hpp"

namespace geotrain {

namespace {

using nlohmann::json;

// Names on disk. Kept here rather than reusing to_string() so the file format stays fixed even
// if display names change.
constexpr std::array<std::pair<ComputeKind, const char*>, 5> kComputeKinds{
    {{ComputeKind::forward, "forward"},
     {ComputeKind::backward, "backward"},
     {ComputeKind::optimizer, "optimizer"},
     {ComputeKind::other, "other"},
     {ComputeKind::outer_optimizer, "outer_optimizer"}}};
constexpr std::array<std::pair<CollectiveKind, const char*>, 7> kCollectiveKinds{
    {{CollectiveKind::allreduce, "allreduce"},
     {CollectiveKind::reduce_scatter, "reduce_scatter"},
     {CollectiveKind::allgather, "allgather"},
     {CollectiveKind::broadcast, "broadcast"},
     {CollectiveKind::gather, "gather"},
     {CollectiveKind::scatter, "scatter"},
     {CollectiveKind::reduce, "reduce"}}};
constexpr std::array<std::pair<CollectiveAlgorithm, const char*>, 6> kAlgorithms{
    {{CollectiveAlgorithm::ring, "ring"},
     {CollectiveAlgorithm::tree, "tree"},
     {CollectiveAlgorithm::halving_doubling, "halving_doubling"},
     {CollectiveAlgorithm::direct, "direct"},
     {CollectiveAlgorithm::library, "library"},
     {CollectiveAlgorithm::butterfly, "butterfly"}}};
constexpr std::array<std::pair<Payload, const char*>, 6> kPayloads{
    {{Payload::activation, "activation"},
     {Payload::activation_grad, "activation_grad"},
     {Payload::gradients, "gradients"},
     {Payload::weights, "weights"},
     {Payload::pseudo_gradient, "pseudo_gradient"},
     {Payload::state, "state"}}};

template <typename E, std::size_t N>
const char* name_of(const std::array<std::pair<E, const char*>, N>& table, E value) {
  for (const auto& [v, n] : table)
    if (v == value) return n;
  return "?";
}

json op_body_to_json(const ComputeOp& c) {
  return {{"op", "compute"},         {"kind", name_of(kComputeKinds, c.kind)},
          {"stage", c.stage},        {"micro_batch", c.micro_batch},
          {"layer_begin", c.layer_begin}, {"layer_end", c.layer_end},
          {"sequences", c.sequences}, {"flops", c.flops},
          {"memory_bytes", c.memory_bytes}};
}
// The optional field "iterations" is written only when set, so Programs without it keep their
// files.
json op_body_to_json(const SendOp& s) {
  return {{"op", "send"}, {"peer", s.peer}, {"bytes", s.bytes}, {"tag", s.tag},
          {"payload", name_of(kPayloads, s.payload)}, {"micro_batch", s.micro_batch}};
}
json op_body_to_json(const RecvOp& r) {
  return {{"op", "recv"}, {"peer", r.peer}, {"bytes", r.bytes}, {"tag", r.tag},
          {"payload", name_of(kPayloads, r.payload)}, {"micro_batch", r.micro_batch}};
}
// "compression" is written only when the op compresses, so other Programs keep their files.
json op_body_to_json(const CollectiveOp& c) {
  json o = {{"op", "collective"},  {"kind", name_of(kCollectiveKinds, c.kind)},
            {"group", c.group},    {"bytes", c.bytes},
            {"algorithm", name_of(kAlgorithms, c.algorithm)},
            {"root", c.root},      {"tag", c.tag},
            {"payload", name_of(kPayloads, c.payload)}};
  const Compression& z = c.compression;
  if (z.kind != CompressionKind::none)
    o["compression"] = {{"kind", to_string(z.kind)},       {"block", z.block},
                        {"density", z.density},            {"error_feedback", z.error_feedback},
                        {"element_bytes", z.element_bytes}};
  return o;
}
// A Dynamic op carries its rule's own fields only.
json op_body_to_json(const DynamicOp& d) {
  json o = {{"op", "dynamic"}, {"rule", rule_key(d.rule)}, {"group", d.group},
            {"bytes", d.bytes}, {"tag", d.tag}, {"payload", name_of(kPayloads, d.payload)}};
  std::visit(Overloaded{[&](const PartialReduceRule& r) {
                          o["window_s"] = r.window_s;
                          o["window_min_s"] = r.window_min_s;
                          o["window_max_s"] = r.window_max_s;
                          o["full_sync_every"] = r.full_sync_every;
                        },
                        [&](const GossipRule& r) { o["seed"] = r.seed; }},
             d.rule);
  return o;
}
json op_body_to_json(const WaitOp& w) { return {{"op", "wait"}, {"ops", w.ops}}; }

// Reads typed fields out of one JSON object, collecting every problem with its JSON path.
class Reader {
 public:
  Reader(std::string source, std::vector<std::string>& problems)
      : source_(std::move(source)), problems_(problems) {}

  template <typename T>
  T get(const json& obj, const std::string& key, const std::string& path, T fallback = T{}) {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      problem(path + "." + key, "missing");
      return fallback;
    }
    try {
      return it->get<T>();
    } catch (const json::exception&) {
      problem(path + "." + key, fmt::format("'{}' has the wrong type", it->dump()));
      return fallback;
    }
  }

  template <typename E, std::size_t N>
  E get_enum(const json& obj, const std::string& key, const std::string& path,
             const std::array<std::pair<E, const char*>, N>& table) {
    const auto text = get<std::string>(obj, key, path);
    for (const auto& [v, n] : table)
      if (text == n) return v;
    std::string known;
    for (const auto& [v, n] : table) known += (known.empty() ? "" : ", ") + std::string(n);
    if (obj.contains(key)) problem(path + "." + key, fmt::format("'{}' unknown (known: {})", text, known));
    return table[0].first;
  }

  void problem(const std::string& path, const std::string& what) {
    problems_.push_back(fmt::format("{}: {}: {}", source_, path, what));
  }

 private:
  std::string source_;
  std::vector<std::string>& problems_;
};

Compression compression_from_json(const json& j, const std::string& path, Reader& rd) {
  Compression z;
  const auto kind = rd.get<std::string>(j, "kind", path);
  if (const auto k = parse_compression_kind(kind)) z.kind = *k;
  else rd.problem(path + ".kind", fmt::format("'{}' unknown (known: none, int8, fp4, topk)", kind));
  z.block = rd.get<int>(j, "block", path);
  z.density = rd.get<double>(j, "density", path);
  z.error_feedback = rd.get<bool>(j, "error_feedback", path);
  z.element_bytes = rd.get<int>(j, "element_bytes", path);
  return z;
}

Op op_from_json(const json& j, const std::string& path, Reader& rd) {
  Op op;
  if (!j.is_object()) {
    rd.problem(path, "expected an object");
    return op;
  }
  op.label = rd.get<std::string>(j, "label", path);
  op.nonblocking = rd.get<bool>(j, "nonblocking", path);
  if (j.contains("iterations"))  // [[begin, end(, every)], ...], end -1: to the end of the run
    for (const auto& r : rd.get<std::vector<std::vector<int>>>(j, "iterations", path)) {
      if (r.size() != 2 && r.size() != 3) {
        rd.problem(path + ".iterations", "expected [begin, end] or [begin, end, every]");
        continue;
      }
      op.iterations.push_back({r[0], r[1], r.size() == 3 ? r[2] : 1});
    }
  const auto kind = rd.get<std::string>(j, "op", path);
  if (kind == "compute") {
    ComputeOp c;
    c.kind = rd.get_enum(j, "kind", path, kComputeKinds);
    c.stage = rd.get<int>(j, "stage", path);
    c.micro_batch = rd.get<int>(j, "micro_batch", path);
    c.layer_begin = rd.get<int>(j, "layer_begin", path);
    c.layer_end = rd.get<int>(j, "layer_end", path);
    c.sequences = rd.get<double>(j, "sequences", path);
    c.flops = rd.get<double>(j, "flops", path);
    c.memory_bytes = rd.get<double>(j, "memory_bytes", path);
    op.body = c;
  } else if (kind == "send" || kind == "recv") {
    const int peer = rd.get<int>(j, "peer", path);
    const double bytes = rd.get<double>(j, "bytes", path);
    const int tag = rd.get<int>(j, "tag", path);
    const Payload payload = rd.get_enum(j, "payload", path, kPayloads);
    const int micro_batch = rd.get<int>(j, "micro_batch", path);
    if (kind == "send") op.body = SendOp{peer, bytes, tag, payload, micro_batch};
    else op.body = RecvOp{peer, bytes, tag, payload, micro_batch};
  } else if (kind == "collective") {
    CollectiveOp c;
    c.kind = rd.get_enum(j, "kind", path, kCollectiveKinds);
    c.group = rd.get<int>(j, "group", path);
    c.bytes = rd.get<double>(j, "bytes", path);
    c.algorithm = rd.get_enum(j, "algorithm", path, kAlgorithms);
    c.root = rd.get<int>(j, "root", path);
    c.tag = rd.get<int>(j, "tag", path);
    c.payload = rd.get_enum(j, "payload", path, kPayloads);
    if (j.contains("compression")) c.compression = compression_from_json(j["compression"], path + ".compression", rd);
    op.body = c;
  } else if (kind == "dynamic") {
    DynamicOp d;
    const auto rule = rd.get<std::string>(j, "rule", path);
    if (rule == "partial_reduce") {
      PartialReduceRule r;
      r.window_s = rd.get<double>(j, "window_s", path);
      r.window_min_s = rd.get<double>(j, "window_min_s", path);
      r.window_max_s = rd.get<double>(j, "window_max_s", path);
      r.full_sync_every = rd.get<int>(j, "full_sync_every", path);
      d.rule = r;
    } else if (rule == "gossip") {
      d.rule = GossipRule{rd.get<std::uint64_t>(j, "seed", path)};
    } else if (j.contains("rule")) {
      rd.problem(path + ".rule", fmt::format("'{}' unknown (known: partial_reduce, gossip)", rule));
    }
    d.group = rd.get<int>(j, "group", path);
    d.bytes = rd.get<double>(j, "bytes", path);
    d.tag = rd.get<int>(j, "tag", path);
    d.payload = rd.get_enum(j, "payload", path, kPayloads);
    op.body = d;
  } else if (kind == "wait") {
    op.body = WaitOp{rd.get<std::vector<int>>(j, "ops", path)};
  } else if (j.contains("op")) {
    rd.problem(path + ".op",
               fmt::format("'{}' unknown (known: compute, send, recv, collective, dynamic, wait)",
                           kind));
  }
  return op;
}

}  // namespace

const char* json_name(ComputeKind k) { return name_of(kComputeKinds, k); }
const char* json_name(CollectiveKind k) { return name_of(kCollectiveKinds, k); }
const char* json_name(CollectiveAlgorithm a) { return name_of(kAlgorithms, a); }
const char* json_name(Payload p) { return name_of(kPayloads, p); }

nlohmann::json program_to_json(const Program& program) {
  json groups = json::array();
  for (const auto& g : program.groups) {
    json group = {{"id", g.id}, {"name", g.name}, {"ranks", g.ranks}};
    if (!g.part_fractions.empty()) group["part_fractions"] = g.part_fractions;
    groups.push_back(std::move(group));
  }
  json ranks = json::array();
  for (const auto& ops : program.ranks) {
    json list = json::array();
    for (const auto& op : ops) {
      json o = std::visit([](const auto& body) { return op_body_to_json(body); }, op.body);
      o["label"] = op.label;
      o["nonblocking"] = op.nonblocking;
      if (!op.iterations.empty()) {
        json ranges = json::array();
        for (const auto& r : op.iterations)
          ranges.push_back(r.every > 1 ? json{r.begin, r.end, r.every} : json{r.begin, r.end});
        o["iterations"] = std::move(ranges);
      }
      list.push_back(std::move(o));
    }
    ranks.push_back(std::move(list));
  }
  json out = {{"format", "geotrain-program"},
              {"version", 1},
              {"strategy", program.strategy},
              {"world_size", program.world_size},
              {"device_of_rank", program.device_of_rank},
              {"sequences_per_iteration", program.sequences_per_iteration},
              {"tokens_per_iteration", program.tokens_per_iteration},
              {"model_flops_per_iteration", program.model_flops_per_iteration},
              {"groups", std::move(groups)},
              {"ranks", std::move(ranks)}};
  // Only when set, so Programs without an outer step serialize exactly as before.
  if (program.outer_step) {
    out["outer_step"] = {{"learning_rate", program.outer_step->learning_rate},
                         {"momentum", program.outer_step->momentum},
                         {"wire_dtype", dtype_name(program.outer_step->wire_dtype)}};
    if (program.outer_step->fragmented) {
      out["outer_step"]["fragmented"] = true;
      out["outer_step"]["mixing"] = program.outer_step->mixing;
    }
  }
  if (!program.not_emulated.empty()) out["not_emulated"] = program.not_emulated;
  return out;
}

Program program_from_json(const nlohmann::json& j, const std::string& source) {
  std::vector<std::string> problems;
  Reader rd(source, problems);
  Program p;
  if (!j.is_object()) throw InputError(source + ": expected a JSON object (a geotrain Program)");
  if (j.value("format", "") != "geotrain-program" || j.value("version", 0) != 1)
    rd.problem("$", "expected \"format\": \"geotrain-program\" and \"version\": 1");
  p.strategy = rd.get<std::string>(j, "strategy", "$");
  p.world_size = rd.get<int>(j, "world_size", "$");
  p.device_of_rank = rd.get<std::vector<int>>(j, "device_of_rank", "$");
  p.sequences_per_iteration = rd.get<double>(j, "sequences_per_iteration", "$");
  p.tokens_per_iteration = rd.get<double>(j, "tokens_per_iteration", "$");
  p.model_flops_per_iteration = rd.get<double>(j, "model_flops_per_iteration", "$");
  if (j.contains("outer_step")) {
    const auto& o = j["outer_step"];
    OuterStep step;
    step.learning_rate = rd.get<double>(o, "learning_rate", "$.outer_step");
    step.momentum = rd.get<double>(o, "momentum", "$.outer_step");
    const auto wire = rd.get<std::string>(o, "wire_dtype", "$.outer_step");
    if (const auto t = parse_dtype(wire))
      step.wire_dtype = *t;
    else
      rd.problem("$.outer_step.wire_dtype", "'" + wire + "' (expected fp32, fp16 or bf16)");
    if (o.contains("fragmented")) {
      step.fragmented = rd.get<bool>(o, "fragmented", "$.outer_step");
      step.mixing = rd.get<double>(o, "mixing", "$.outer_step");
      if (!(step.mixing >= 0 && step.mixing <= 1))
        rd.problem("$.outer_step.mixing", fmt::format("{} (expected 0 ... 1)", step.mixing));
    }
    p.outer_step = step;
  }
  if (j.contains("not_emulated")) p.not_emulated = rd.get<std::string>(j, "not_emulated", "$");
  const auto groups = rd.get<json>(j, "groups", "$", json::array());
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto path = fmt::format("$.groups[{}]", i);
    p.groups.push_back({rd.get<int>(groups[i], "id", path), rd.get<std::string>(groups[i], "name", path),
                        rd.get<std::vector<int>>(groups[i], "ranks", path),
                        groups[i].contains("part_fractions")
                            ? rd.get<std::vector<double>>(groups[i], "part_fractions", path)
                            : std::vector<double>{}});
  }
  const auto ranks = rd.get<json>(j, "ranks", "$", json::array());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    p.ranks.emplace_back();
    if (!ranks[r].is_array()) {
      rd.problem(fmt::format("$.ranks[{}]", r), "expected an array of ops");
      continue;
    }
    for (std::size_t i = 0; i < ranks[r].size(); ++i)
      p.ranks.back().push_back(op_from_json(ranks[r][i], fmt::format("$.ranks[{}][{}]", r, i), rd));
  }
  if (!problems.empty()) throw InputError(problems);
  return p;
}

void write_program_json(const Program& program, const std::string& path) {
  std::ofstream out(path);
  out << program_to_json(program).dump(1) << '\n';
  if (!out) throw Error("cannot write Program file " + path);
}

Program read_program_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open Program file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  return program_from_json(j, path);
}

bool programs_equal(const Program& a, const Program& b) {
  // The JSON form writes every field, so equal JSON means equal Programs.
  return program_to_json(a) == program_to_json(b);
}

}  // namespace geotrain
