// model: a preset, a custom shape, or a preset with some fields changed.
//   model: {preset: gpt3-xl}
//   model: {layers: 4, d_model: 64, heads: 4, seq_len: 64, vocab: 256, dtype: fp32}
// training: batch sizes and optimizer.
//   training: {global_batch: 512, micro_batch: 4, steps: 20, optimizer: adam, learning_rate: 1e-4}
//   training: {global_batch_tokens: 1000000, micro_batches: 8}   # DT-FM's "1M tokens"
#include <fmt/format.h>

#include <cmath>

#include "sim/scenario/sections.hpp"
#include "sim/scenario/strategy_catalog.hpp"

namespace geotrain::sections {

void parse_model(Context& ctx, YamlSection s, Scenario& out) {
  if (!s.present()) {
    if (s.given()) return;
    ctx.diag.error(0, "model", "missing section (expected e.g. model: {preset: gpt3-xl})");
    return;
  }
  ModelSpec m;
  if (auto preset = s.choice("preset", model_preset_names(), "model preset")) {
    m = model_preset(*preset);
  } else {
    m.preset = "custom";
  }
  const bool custom = !s.has("preset");
  auto read_int = [&](const char* key, int& field, std::int64_t max) {
    if (auto v = s.integer(key, 1, max, custom)) field = static_cast<int>(*v);
  };
  read_int("layers", m.layers, 100000);
  read_int("d_model", m.d_model, 1 << 20);
  read_int("heads", m.heads, 1 << 16);
  read_int("seq_len", m.seq_len, 1 << 24);
  read_int("vocab", m.vocab, 1 << 24);
  // choice() accepts only dtype_names(), so parse_dtype always has an answer.
  if (auto t = s.choice("dtype", dtype_names(), "dtype")) m.dtype = *parse_dtype(*t);
  if (auto t = s.choice("gradient_dtype", dtype_names(), "dtype")) m.gradient_dtype = *parse_dtype(*t);
  if (auto p = s.number("params", 1, 1e15)) m.nominal_params = *p;
  s.finish();
  if (m.heads > 0 && m.d_model > 0 && m.d_model % m.heads != 0)
    ctx.diag.error(s.line_of("heads"), "model.heads", std::to_string(m.heads),
                   fmt::format("d_model {} is not divisible by the number of heads", m.d_model));
  out.model = m;
}

void parse_training(Context& ctx, YamlSection s, Scenario& out) {
  TrainingSpec& t = out.training;
  auto sequences = s.number("global_batch", 1, 1e12);
  auto tokens = s.number("global_batch_tokens", 1, 1e15);
  if (sequences && tokens)
    ctx.diag.error(s.line_of("global_batch_tokens"), "training",
                   "gives both global_batch and global_batch_tokens (expected one)");
  if (tokens && out.model.seq_len > 0) sequences = *tokens / out.model.seq_len;
  t.global_batch = sequences.value_or(static_cast<double>(participating_devices(out)));
  if (auto mb = s.number("micro_batch", 1e-6, 1e12)) t.micro_batch = *mb;
  if (auto m = s.integer("micro_batches", 1, 1'000'000)) t.micro_batches = static_cast<int>(*m);
  if (t.micro_batch > 0 && t.micro_batches > 0)
    ctx.diag.error(s.line_of("micro_batches"), "training",
                   "gives both micro_batch and micro_batches (expected one)");
  if (auto steps = s.integer("steps", 1, 100'000'000)) t.steps = static_cast<int>(*steps);
  if (auto o = s.choice("optimizer", {"sgd", "adam", "adamw"}, "optimizer"))
    t.optimizer = *o == "sgd" ? Optimizer::sgd : *o == "adam" ? Optimizer::adam : Optimizer::adamw;
  if (auto lr = s.number("learning_rate", 0, 1e3)) t.learning_rate = *lr;
  s.finish();
}

}  // namespace geotrain::sections
