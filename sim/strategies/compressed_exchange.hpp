#pragma once
// Compressed exchanges for the strategies that average gradients, pseudo-gradients or weights
// with one all-reduce (ddp-allreduce, diloco, local-sgd): the scenario's `compression` map,
// its checks, and the ops an exchange becomes (docs/compression.md).
//
//   strategy: {name: diloco, compression: {kind: int8, block: 64}}
//   strategy: {name: ddp-allreduce, compression: {kind: topk, density: 0.01, error_feedback: true}}
//
// Uncompressed, an exchange is the collective alone. Compressed, it is three ops: the encoder
// ("compress int8": kind other), the collective (carrying its Compression), and the decoder
// ("decompress int8": kind other, which also averages). What each codec op does, and so what
// its flops and bytes count, is the worker's work in that op (compression_costs in the .cpp).
#include <string>
#include <vector>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/strategy_catalog.hpp"

namespace geotrain {

// The `compression` map parameter: kind none | int8 | fp4 | topk; block (int8 64, fp4 32
// elements per scale); density (topk, 0.03); error_feedback (topk, true).
ParamDecl compression_param();

// The scenario's compression for a buffer of `element_bytes`-byte elements.
Compression scenario_compression(const Scenario& s, int element_bytes);

// Cross-field checks: a compressed exchange is a ring all-reduce of send/recv steps (algorithm
// ring; emulation.collectives p2p or nccl). `averages_weights`: the strategy averages weights
// (local-sgd), which top-k cannot (a sum of sparse weights is no average).
void compression_check(const Scenario& s, Diagnostics& diag, int line, bool averages_weights);

// Appends the exchange: `c` alone, or encoder, `c`, decoder when c.compression compresses.
// The codec ops cover layers [0, layers) (the whole model's buffer).
void add_exchange(std::vector<Op>& ops, const CollectiveOp& c, std::string label, int group_size, int layers);

// An overlapped exchange (Streaming DiLoCo's), in two parts: start_exchange appends the encoder
// (when compressed) and the collective, NONBLOCKING, and returns the collective's index;
// finish_exchange appends the Wait for it and, when compressed, the decoder right after it.
int start_exchange(std::vector<Op>& ops, const CollectiveOp& c, std::string label, int group_size, int layers);
void finish_exchange(std::vector<Op>& ops, int collective, std::string wait_label, int group_size, int layers);

}  // namespace geotrain
