#include "emu/worker/compressed_exchange.hpp"

#include <cstring>
#include <span>

#include <fmt/format.h>

#include "emu/worker/collective_runner.hpp"
#include "sim/common/error.hpp"
#include "sim/common/small_math.hpp"
#include "sim/program/collective_schedule.hpp"
#include "sim/program/compression.hpp"
#include "sim/program/compression_codec.hpp"

namespace geotrain {

namespace {

std::span<float> floats(torch::Tensor& t, std::size_t offset, std::size_t count) {
  return {t.data_ptr<float>() + offset, count};
}

std::span<std::uint8_t> bytes_of(torch::Tensor& t, std::size_t offset, std::size_t count) {
  return {t.data_ptr<std::uint8_t>() + offset, count};
}

torch::Tensor byte_tensor(const std::vector<std::uint8_t>& data, const torch::Device& on) {
  auto t = torch::empty({static_cast<std::int64_t>(data.size())}, torch::kUInt8);
  std::memcpy(t.data_ptr<std::uint8_t>(), data.data(), data.size());
  return t.to(on);
}

}  // namespace

void CompressedExchange::quantize_into(const CollectiveOp& op, int n, int q) {
  const auto& z = op.compression;
  const auto c = chunk_range(static_cast<std::size_t>(work_.numel()), n, q);
  auto& out = chunks_[static_cast<std::size_t>(q)];
  out.assign(quantized_bytes(z.kind, z.block, c.count), 0);
  quantize_chunk(z.kind, z.block, floats(work_, c.offset, c.count), out);
}

void CompressedExchange::encode(const CollectiveOp& op, int n, int p, const torch::Tensor& buffer,
                                torch::Tensor& residual) {
  const auto& z = op.compression;
  const std::size_t elements = compressed_elements(op);
  if (static_cast<std::size_t>(buffer.numel()) != elements)
    throw InputError(fmt::format("compressed collective of {} elements over a buffer of {}", elements, buffer.numel()));
  position_ = p;
  work_ = buffer.detach().to(torch::kCPU, torch::kFloat32).contiguous().clone();
  if (z.kind == CompressionKind::topk) {
    if (z.error_feedback && residual.defined() && residual.numel() == work_.numel()) work_.add_(residual);
    const std::size_t message = topk_message_bytes(z, elements);
    gathered_ = torch::zeros({static_cast<std::int64_t>(message) * n}, torch::kUInt8);
    select_topk(floats(work_, 0, elements), bytes_of(gathered_, message * static_cast<std::size_t>(p), message));
    // work_ now holds what was not sent.
    if (z.error_feedback) residual = work_;
    else residual = torch::Tensor();
    return;
  }
  chunks_.assign(static_cast<std::size_t>(n), {});
  if (n > 1) quantize_into(op, n, mod(p - 1, n));  // the chunk the ring's first step sends
}

double CompressedExchange::exchange(Cluster& cluster, const Program& program, const CollectiveOp& op, int n,
                                    int p, const torch::Device& wire) {
  if (n <= 1) return 0;
  if (op.compression.kind != CompressionKind::topk) return quantized_ring(cluster, op, n, p, wire);
  // The members' messages are equal chunks of one byte buffer: a plain ring all-gather of it.
  CollectiveOp gather = op;
  gather.kind = CollectiveKind::allgather;
  gather.compression = {};
  gather.bytes = static_cast<double>(gathered_.numel());
  auto buffer = gathered_.to(wire);
  const double sent = run_collective(cluster, program, gather, buffer, false);
  gathered_ = buffer.cpu();
  return sent;
}

double CompressedExchange::quantized_ring(Cluster& cluster, const CollectiveOp& op, int n, int p,
                                          const torch::Device& wire) {
  auto& pg = cluster.group(op.group);
  const auto& z = op.compression;
  const auto elements = static_cast<std::size_t>(work_.numel());
  double sent = 0;
  // Step s of 2 (n - 1): the reduce-scatter's first n - 1, then the all-gather's (the steps and
  // chunks of collective_schedule's ring, tagged by step as run_schedule tags them).
  for (int s = 0; s < 2 * (n - 1); ++s) {
    const bool reduce = s < n - 1;
    const int send_q = reduce ? mod(p - s - 1, n) : mod(p - (s - (n - 1)), n);
    const int recv_q = reduce ? mod(p - s - 2, n) : mod(p - (s - (n - 1)) - 1, n);
    const auto rc = chunk_range(elements, n, recv_q);
    P2PBatch batch(pg, cluster.transport());
    auto incoming = torch::empty({static_cast<std::int64_t>(quantized_bytes(z.kind, z.block, rc.count))},
                                 torch::TensorOptions().dtype(torch::kUInt8).device(wire));
    if (incoming.numel() > 0) batch.recv(incoming, mod(p - 1, n), s);
    const auto& out = chunks_[static_cast<std::size_t>(send_q)];
    if (!out.empty()) {
      auto t = byte_tensor(out, wire);
      sent += static_cast<double>(t.nbytes());
      batch.send(t, mod(p + 1, n), s);
    }
    batch.wait(cluster.timeout());
    auto got = incoming.cpu();
    if (reduce) {  // dequantize, add this rank's own values, requantize to forward (or keep: own chunk)
      dequantize_add_chunk(z.kind, z.block, bytes_of(got, 0, static_cast<std::size_t>(got.numel())),
                           floats(work_, rc.offset, rc.count));
      quantize_into(op, n, recv_q);
    } else {
      auto& keep = chunks_[static_cast<std::size_t>(recv_q)];
      keep.assign(got.data_ptr<std::uint8_t>(), got.data_ptr<std::uint8_t>() + got.numel());
    }
  }
  return sent;
}

void CompressedExchange::stand_in_for_exchange(const CollectiveOp& op, int n) {
  if (op.compression.kind == CompressionKind::topk) {
    const auto message = gathered_.numel() / n;
    const auto mine = gathered_.narrow(0, position_ * message, message).clone();
    for (int q = 0; q < n; ++q) gathered_.narrow(0, q * message, message).copy_(mine);
    return;
  }
  for (int q = 0; q < n; ++q) quantize_into(op, n, q);
}

torch::Tensor CompressedExchange::decode(const CollectiveOp& op, int n) {
  const auto& z = op.compression;
  const auto elements = static_cast<std::size_t>(work_.numel());
  if (n <= 1 && z.kind != CompressionKind::topk) return work_;  // nothing was quantized
  auto out = torch::zeros({static_cast<std::int64_t>(elements)}, torch::kFloat32);
  if (z.kind == CompressionKind::topk) {
    const std::size_t message = static_cast<std::size_t>(gathered_.numel()) / static_cast<std::size_t>(n);
    for (int q = 0; q < n; ++q)
      add_topk(bytes_of(gathered_, message * static_cast<std::size_t>(q), message), floats(out, 0, elements));
  } else {
    // Every member dequantizes the same final chunks, its own included, so all agree exactly.
    for (int q = 0; q < n; ++q) {
      const auto c = chunk_range(elements, n, q);
      dequantize_chunk(z.kind, z.block, chunks_[static_cast<std::size_t>(q)], floats(out, c.offset, c.count));
    }
  }
  return out.div_(n);
}

}  // namespace geotrain
