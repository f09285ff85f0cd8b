#include "emu/worker/gpt_stage.hpp"

#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "sim/common/error.hpp"

namespace geotrain {

namespace {

std::uint64_t name_seed(std::uint64_t seed, const std::string& name) {
  std::uint64_t h = 1469598103934665603ull ^ seed;  // FNV-1a over the name, keyed by the seed
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h & 0x7fffffffffffffffull;
}

}  // namespace

GptStage::GptStage(const ModelSpec& model, int layer_begin, int layer_end, bool tied_head,
                   std::uint64_t seed, const torch::Device& device)
    : model_(model),
      layer_begin_(layer_begin),
      layer_end_(layer_end),
      first_(layer_begin == 0),
      last_(layer_end == model.layers),
      tied_(tied_head),
      seed_(seed),
      device_(device) {
  if (tied_ && !(first_ && last_))
    throw InputError("a tied LM head needs the whole model in one stage (set tie_embeddings false)");
  const std::int64_t d = model.d_model, V = model.vocab, S = model.seq_len;
  const double proj_std = 0.02 / std::sqrt(2.0 * model.layers);  // GPT-2's residual scaling
  // Parameters are created in backward order (see the header): head first, embeddings last.
  if (last_) {
    lnf_w_ = param("ln_f.weight", {d}, 0, 1);
    lnf_b_ = param("ln_f.bias", {d}, 0);
    // An untied head starts as a copy of the token embedding, as in the tied model.
    if (!tied_) head_w_ = param("wte", {V, d}, 0.02);
  }
  const auto elements_so_far = [this] {
    std::int64_t n = 0;
    for (const auto& p : params_) n += p.numel();
    return n;
  };
  head_elements_ = elements_so_far();
  for (int l = layer_end - 1; l >= layer_begin; --l) {
    const auto n = fmt::format("h{}.", l);
    Block b;
    b.fc2_b = param(n + "fc2.bias", {d}, 0);
    b.fc2_w = param(n + "fc2.weight", {d, 4 * d}, proj_std);
    b.fc1_b = param(n + "fc1.bias", {4 * d}, 0);
    b.fc1_w = param(n + "fc1.weight", {4 * d, d}, 0.02);
    b.ln2_b = param(n + "ln2.bias", {d}, 0);
    b.ln2_w = param(n + "ln2.weight", {d}, 0, 1);
    b.proj_b = param(n + "proj.bias", {d}, 0);
    b.proj_w = param(n + "proj.weight", {d, d}, proj_std);
    b.qkv_b = param(n + "qkv.bias", {3 * d}, 0);
    b.qkv_w = param(n + "qkv.weight", {3 * d, d}, 0.02);
    b.ln1_b = param(n + "ln1.bias", {d}, 0);
    b.ln1_w = param(n + "ln1.weight", {d}, 0, 1);
    blocks_.emplace(l, std::move(b));
  }
  if (layer_end > layer_begin) block_elements_ = (elements_so_far() - head_elements_) / (layer_end - layer_begin);
  if (first_) {
    const std::int64_t before = elements_so_far();
    wpe_ = param("wpe", {S, d}, 0.01);
    wte_ = param("wte", {V, d}, 0.02);
    if (tied_) head_w_ = wte_;
    embedding_elements_ = elements_so_far() - before;
  }
  causal_mask_ = torch::ones({S, S}, torch::TensorOptions().dtype(torch::kBool).device(device_)).triu(1);
  make_flat_grad();
}

torch::Tensor GptStage::param(const std::string& name, std::vector<std::int64_t> shape,
                              double std_dev, double constant) {
  torch::Tensor t;
  if (std_dev > 0) {
    auto gen = at::make_generator<at::CPUGeneratorImpl>(name_seed(seed_, name));
    t = torch::normal(0.0, std_dev, shape, gen).to(device_);
  } else {
    t = torch::full(shape, constant, torch::TensorOptions().device(device_));
  }
  t.requires_grad_(true);
  params_.push_back(t);
  return t;
}

std::pair<std::int64_t, std::int64_t> GptStage::flat_range(int lb, int le) const {
  if (lb < layer_begin_ || le > layer_end_ || lb >= le)
    throw InputError(fmt::format("layers [{}, {}) outside this stage's [{}, {})", lb, le, layer_begin_, layer_end_));
  const std::int64_t begin = le == layer_end_ ? 0 : head_elements_ + (layer_end_ - le) * block_elements_;
  std::int64_t end = head_elements_ + (layer_end_ - lb) * block_elements_;
  if (lb == layer_begin_) end += embedding_elements_;
  return {begin, end - begin};
}

void GptStage::make_flat_grad() {
  std::int64_t total = 0;
  for (const auto& p : params_) total += p.numel();
  flat_grad_ = torch::zeros({total}, torch::TensorOptions().device(device_));
  std::int64_t offset = 0;
  for (auto& p : params_) {
    p.mutable_grad() = flat_grad_.narrow(0, offset, p.numel()).view(p.sizes());
    offset += p.numel();
  }
}

torch::Tensor GptStage::block_forward(const Block& b, const torch::Tensor& x) const {
  namespace F = torch::nn::functional;
  const std::int64_t B = x.size(0), S = x.size(1), d = model_.d_model, H = model_.heads;
  auto h = torch::layer_norm(x, {d}, b.ln1_w, b.ln1_b);
  auto qkv = torch::linear(h, b.qkv_w, b.qkv_b).chunk(3, -1);
  auto heads = [&](const torch::Tensor& t) { return t.view({B, S, H, d / H}).transpose(1, 2); };
  auto q = heads(qkv[0]), k = heads(qkv[1]), v = heads(qkv[2]);
  auto att = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(d / H));
  att = torch::softmax(att.masked_fill(causal_mask_, -INFINITY), -1);
  auto y = torch::matmul(att, v).transpose(1, 2).reshape({B, S, d});
  auto r = x + torch::linear(y, b.proj_w, b.proj_b);
  auto m = torch::gelu(torch::linear(torch::layer_norm(r, {d}, b.ln2_w, b.ln2_b), b.fc1_w, b.fc1_b));
  return r + torch::linear(m, b.fc2_w, b.fc2_b);
}

torch::Tensor GptStage::forward(int mb, int lb, int le, const torch::Tensor& input,
                                const torch::Tensor& targets) {
  auto& st = live_[mb];
  torch::Tensor x;
  if (lb == 0) {
    const auto positions = torch::arange(input.size(1), torch::TensorOptions().dtype(torch::kLong).device(device_));
    st.emb_out = torch::embedding(wte_, input) + torch::embedding(wpe_, positions);
    x = st.emb_out;
  } else {
    x = st.out.count(lb - 1) ? st.out.at(lb - 1) : input;
  }
  for (int l = lb; l < le; ++l) {
    auto leaf = x.detach().requires_grad_(true);
    st.in[l] = leaf;
    x = st.out[l] = block_forward(blocks_.at(l), leaf);
  }
  if (le < model_.layers) return x.detach();
  st.head_in = x.detach().requires_grad_(true);
  auto logits = torch::linear(torch::layer_norm(st.head_in, {model_.d_model}, lnf_w_, lnf_b_), head_w_);
  st.loss = torch::cross_entropy_loss(logits.reshape({-1, model_.vocab}), targets.reshape({-1}));
  return st.loss.detach();
}

torch::Tensor GptStage::backward(int mb, int lb, int le, const torch::Tensor& output_grad,
                                 double loss_weight) {
  auto& st = live_.at(mb);
  torch::Tensor g;
  if (le == model_.layers) {
    (st.loss * loss_weight).backward();
    g = st.head_in.grad();
  } else {
    g = st.pending_grad.defined() && le < layer_end_ ? st.pending_grad : output_grad;
  }
  for (int l = le - 1; l >= lb; --l) {
    torch::autograd::backward({st.out.at(l)}, {g});
    g = st.in.at(l).grad();
  }
  if (lb == 0) {
    torch::autograd::backward({st.emb_out}, {g});
    g = torch::Tensor();
  }
  st.pending_grad = g;
  if (lb == layer_begin_) live_.erase(mb);
  return g;
}

}  // namespace geotrain
