#pragma once
// The slice of a GPT decoder one pipeline stage owns, as plain tensors and functional ops:
// token + position embeddings (first stage), pre-LN blocks with causal self-attention and a 4x
// MLP (layers [layer_begin, layer_end)), final layer norm + LM head + cross-entropy (last stage).
//
// Every parameter is initialised from (seed, its global name), so any split of the model into
// stages starts from exactly the parameters of the unsplit model. Gradients live in ONE flat
// buffer in backward order (last parameters first, embeddings last): the slices gradient
// collectives take from it follow the order backward produces them (DDP buckets).
//
// Activations are cut at every block boundary (detached leaves) so a backward op can cover any
// sub-range of layers, as the Program's Compute ops say.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "sim/scenario/model_spec.hpp"

namespace geotrain {

class GptStage {
 public:
  // Parameters are drawn on the CPU (the same values on any device) and then live on `device`.
  GptStage(const ModelSpec& model, int layer_begin, int layer_end, bool tied_head,
           std::uint64_t seed, const torch::Device& device);

  // Forward of micro-batch `mb` through layers [lb, le). `input` is the token ids [B, S] when
  // lb == 0, else the activation [B, S, d] received from the previous stage (ignored when an
  // earlier forward op of this stage already produced it). Returns the output activation, or
  // the mean loss when le == layers.
  torch::Tensor forward(int mb, int lb, int le, const torch::Tensor& input,
                        const torch::Tensor& targets);
  // Backward of micro-batch `mb` through layers [lb, le) with the loss scaled by `loss_weight`
  // (last stage) or the received output gradient. Returns the gradient of the stage input
  // (undefined at layer 0). Frees the micro-batch's activations once it reaches layer_begin.
  torch::Tensor backward(int mb, int lb, int le, const torch::Tensor& output_grad,
                         double loss_weight);

  // Drops micro-batch `mb`'s activations without a backward (geotrain-worker --profile times
  // forward ops alone).
  void discard(int mb) { live_.erase(mb); }

  std::vector<torch::Tensor>& parameters() { return params_; }
  torch::Tensor& flat_grad() { return flat_grad_; }  // every parameter's .grad is a view of it
  std::int64_t parameter_count() const { return flat_grad_.numel(); }
  // Where layers [lb, le) of this stage lie in the flat buffers (flat_grad(), and the weights in
  // parameters() order): {offset, elements}. The first layer's range includes the embeddings,
  // the last one's the final layer norm and the LM head; in backward order the layers of any
  // such range are contiguous (Streaming DiLoCo's fragments).
  std::pair<std::int64_t, std::int64_t> flat_range(int lb, int le) const;

 private:
  struct Block {
    torch::Tensor ln1_w, ln1_b, qkv_w, qkv_b, proj_w, proj_b, ln2_w, ln2_b, fc1_w, fc1_b, fc2_w,
        fc2_b;
  };
  struct MicroBatch {
    torch::Tensor emb_out;
    std::map<int, torch::Tensor> in, out;  // per layer: detached input leaf, output
    torch::Tensor head_in, loss;
    torch::Tensor pending_grad;  // gradient w.r.t. the output of the lowest layer done so far
  };

  torch::Tensor param(const std::string& name, std::vector<std::int64_t> shape, double std_dev,
                      double constant = 0);
  torch::Tensor block_forward(const Block& b, const torch::Tensor& x) const;
  void make_flat_grad();

  ModelSpec model_;
  int layer_begin_, layer_end_;
  bool first_, last_, tied_;
  std::uint64_t seed_;
  torch::Device device_;
  torch::Tensor wte_, wpe_, lnf_w_, lnf_b_, head_w_, causal_mask_;
  std::map<int, Block> blocks_;
  std::vector<torch::Tensor> params_;  // backward order
  torch::Tensor flat_grad_;
  // Elements of the final norm + untied head (last stage), of one block, of the embeddings
  // (first stage): flat_range's arithmetic.
  std::int64_t head_elements_ = 0, block_elements_ = 0, embedding_elements_ = 0;
  std::map<int, MicroBatch> live_;
};

}  // namespace geotrain
