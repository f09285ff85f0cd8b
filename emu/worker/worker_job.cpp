#include "emu/worker/worker_job.hpp"

#include <fstream>

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain {

namespace {

using nlohmann::json;

DType dtype_from(const std::string& s, const std::string& where) {
  if (const auto t = parse_dtype(s)) return *t;
  throw InputError(fmt::format("{}: '{}' unknown dtype (known: fp32, fp16, bf16)", where, s));
}

Optimizer optimizer_from(const std::string& s, const std::string& where) {
  for (auto o : {Optimizer::sgd, Optimizer::adam, Optimizer::adamw})
    if (s == to_string(o)) return o;
  throw InputError(fmt::format("{}: '{}' unknown optimizer (known: sgd, adam, adamw)", where, s));
}

int max_stage(const Program& p) {
  int stages = 0;
  for (const auto& ops : p.ranks)
    for (const auto& op : ops)
      if (const auto* c = op.as<ComputeOp>()) stages = std::max(stages, c->stage + 1);
  return stages;
}

}  // namespace

json worker_job_to_json(const WorkerJob& job) {
  const ModelSpec& m = job.model;
  return {{"format", "geotrain-worker-job"},
          {"version", 1},
          {"program", program_to_json(job.program)},
          {"model",
           {{"layers", m.layers}, {"d_model", m.d_model}, {"heads", m.heads},
            {"seq_len", m.seq_len}, {"vocab", m.vocab}, {"dtype", dtype_name(m.dtype)},
            {"gradient_dtype", dtype_name(m.gradient_dtype)},
            {"nominal_params", m.nominal_params}, {"tie_embeddings", job.tie_embeddings}}},
          {"training",
           {{"optimizer", to_string(job.optimizer)}, {"learning_rate", job.learning_rate}}},
          {"data", {{"successors", job.markov_successors}}},
          {"stragglers",
           {{"probability", job.stragglers.probability}, {"sleep_s", job.stragglers.sleep_s},
            {"seed", job.stragglers.seed}, {"slowdown_of_rank", job.slowdown_of_rank}}},
          {"outer",
           {{"lr", job.outer_lr}, {"momentum", job.outer_momentum},
            {"wire_dtype", dtype_name(job.wire_dtype)}}}};
}

WorkerJob worker_job_from_json(const json& j, const std::string& source) {
  if (!j.is_object() || j.value("format", "") != "geotrain-worker-job" || j.value("version", 0) != 1)
    throw InputError(source + ": expected \"format\": \"geotrain-worker-job\", \"version\": 1");
  WorkerJob job;
  try {
    job.program = program_from_json(j.at("program"), source);
    const auto& m = j.at("model");
    job.model.preset = "custom";
    job.model.layers = m.at("layers").get<int>();
    job.model.d_model = m.at("d_model").get<int>();
    job.model.heads = m.at("heads").get<int>();
    job.model.seq_len = m.at("seq_len").get<int>();
    job.model.vocab = m.at("vocab").get<int>();
    job.model.dtype = dtype_from(m.at("dtype").get<std::string>(), source + ": $.model.dtype");
    job.model.gradient_dtype =
        dtype_from(m.at("gradient_dtype").get<std::string>(), source + ": $.model.gradient_dtype");
    job.model.nominal_params = m.value("nominal_params", 0.0);
    job.tie_embeddings = m.at("tie_embeddings").get<bool>();
    const auto& t = j.at("training");
    job.optimizer = optimizer_from(t.at("optimizer").get<std::string>(), source + ": $.training.optimizer");
    job.learning_rate = t.at("learning_rate").get<double>();
    job.markov_successors = j.at("data").at("successors").get<int>();
    if (j.contains("stragglers")) {
      const auto& st = j.at("stragglers");
      job.stragglers.probability = st.at("probability").get<double>();
      job.stragglers.sleep_s = st.at("sleep_s").get<double>();
      job.stragglers.seed = st.at("seed").get<std::uint64_t>();
      job.slowdown_of_rank = st.value("slowdown_of_rank", std::vector<double>{});
    }
    if (j.contains("outer")) {
      const auto& o = j.at("outer");
      job.outer_lr = o.at("lr").get<double>();
      job.outer_momentum = o.at("momentum").get<double>();
      job.wire_dtype = dtype_from(o.at("wire_dtype").get<std::string>(), source + ": $.outer.wire_dtype");
    }
  } catch (const json::exception& e) {
    throw InputError(fmt::format("{}: {}", source, e.what()));
  }
  const ModelSpec& m = job.model;
  if (m.layers < 1 || m.d_model < 1 || m.heads < 1 || m.d_model % m.heads != 0 || m.seq_len < 1 ||
      m.vocab < 2)
    throw InputError(fmt::format("{}: $.model: layers {} d_model {} heads {} seq_len {} vocab {} "
                                 "(expected positive sizes, d_model divisible by heads, vocab >= 2)",
                                 source, m.layers, m.d_model, m.heads, m.seq_len, m.vocab));
  if (job.markov_successors < 1 || job.markov_successors > m.vocab)
    throw InputError(fmt::format("{}: $.data.successors = {} (expected 1..vocab = {})", source,
                                 job.markov_successors, m.vocab));
  return job;
}

std::string worker_job_text(const WorkerJob& job) { return worker_job_to_json(job).dump(1) + '\n'; }

void write_worker_job(const WorkerJob& job, const std::string& path) {
  std::ofstream out(path);
  out << worker_job_text(job);
  if (!out) throw Error("cannot write worker job " + path);
}

WorkerJob read_worker_job(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open worker job file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path, e.what()));
  }
  return worker_job_from_json(j, path);
}

DType pseudo_gradient_dtype(const Program& program, DType gradient_dtype) {
  return program.outer_step ? program.outer_step->wire_dtype : gradient_dtype;
}

WorkerJob make_worker_job(const Scenario& scenario, Program program) {
  if (!program.not_emulated.empty())
    throw InputError(fmt::format("{}: strategy.name = '{}': simulate only ({}; expected a strategy "
                                 "the emulator runs, docs/adding-a-strategy.md)",
                                 scenario.path, program.strategy, program.not_emulated));
  WorkerJob job;
  job.model = scenario.model;
  job.tie_embeddings = max_stage(program) <= 1;
  job.optimizer = scenario.training.optimizer;
  job.learning_rate = scenario.training.learning_rate;
  job.stragglers = scenario.stragglers;
  for (int device : program.device_of_rank) {
    const double slowdown = scenario.devices.at(static_cast<std::size_t>(device)).slowdown;
    // A CPU worker can be held back, not sped up.
    if (slowdown < 1)
      throw InputError(fmt::format("{}: device {} has slowdown {} (expected >= 1 to emulate: a "
                                   "worker can be slowed down, not sped up)",
                                   scenario.path, device, slowdown));
    job.slowdown_of_rank.push_back(slowdown);
  }
  if (program.outer_step) {
    job.outer_lr = program.outer_step->learning_rate;
    job.outer_momentum = program.outer_step->momentum;
  }
  job.wire_dtype = pseudo_gradient_dtype(program, scenario.model.gradient_dtype);
  job.program = std::move(program);
  return job;
}

}  // namespace geotrain
