#include "emu/worker/transfer_ops.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "emu/worker/cluster.hpp"
#include "emu/worker/collective_runner.hpp"
#include "emu/worker/compute_device.hpp"
#include "emu/worker/warm_up.hpp"
#include "emu/worker/wire_types.hpp"
#include "sim/common/error.hpp"
#include "sim/program/compression.hpp"

namespace geotrain {

namespace {

void check_bytes(int rank, int i, const Op& op, double program_bytes, double tensor_bytes) {
  if (program_bytes != tensor_bytes)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): {} bytes in the Program but the "
                                 "tensor it carries has {} bytes",
                                 rank, i, op.label, program_bytes, tensor_bytes));
}

// Tags above the Program's own (its tags count ops and micro-batches) and apart from the
// dynamic groups' warm-up tag.
constexpr int kPairWarmUpTag = (1 << 22) + 1;

}  // namespace

// A pipeline's Send/Recv pairs carry their first bytes in step 0 on connections that have never
// carried data, so step 0 pays TCP slow start and the receiver's window growth: seconds over a
// long-haul link (SD-Pipe on DT-FM case 5, 4 ranks: 2.6-3.0 s for the first activations between
// Tokyo and Frankfurt, where a warm connection takes 0.8 s). A synchronous Program leaves that in
// its unmeasured first step, but replicas that run asynchronously (SD-Pipe's partial reduce)
// keep the offset the slow first step gave them, and the whole run then behaves differently
// from a long one. The simulator models warm connections (tcp_slow_start_after_idle = 0), as a
// long run has them, so the worker opens the windows first: one exchange per direction of all
// the bytes a step sends on that pair (at most kWarmUpMaxBytes, warm_up.hpp). Not just the
// largest message: a window opened by one micro-batch's activations held the next one back by a
// round trip in step 0 (SD-Pipe, case 5, 4 ranks: the second of two 70 kB activations between
// Tokyo and Frankfurt 0.44 s after the first, 0.03 s predicted), and an asynchronous run kept
// that offset too.
void TransferOps::warm_up_pairs() {
  std::map<int, double> send_bytes, recv_bytes;
  for (const auto& op : ctx_.ops) {
    if (const auto* s = op.as<SendOp>()) send_bytes[s->peer] += s->bytes;
    if (const auto* r = op.as<RecvOp>()) recv_bytes[r->peer] += r->bytes;
  }
  const auto& device = ctx_.device.wire();
  const auto timeout = ctx_.cluster.timeout();
  const int me = ctx_.rank();
  if (ctx_.cluster.transport() != Transport::nccl) {
    warm_up_exchange(ctx_.cluster.sends_to(me + 1), Transport::gloo, device, recv_bytes, send_bytes,
                     kPairWarmUpTag, timeout);
    return;
  }
  // NCCL: each direction on its own world group (Cluster::sends_to), up first, then down. Each
  // direction's transfers flow from lower to higher ranks (or back), so no cycle can wait.
  std::map<int, double> from_below, to_above, from_above, to_below;
  for (const auto& [peer, bytes] : recv_bytes) (peer < me ? from_below : from_above)[peer] = bytes;
  for (const auto& [peer, bytes] : send_bytes) (peer > me ? to_above : to_below)[peer] = bytes;
  warm_up_exchange(ctx_.cluster.sends_to(me + 1), Transport::nccl, device, from_below, to_above, kPairWarmUpTag,
                   timeout);
  warm_up_exchange(ctx_.cluster.sends_to(me - 1), Transport::nccl, device, from_above, to_below, kPairWarmUpTag,
                   timeout);
}

TransferOps::TransferOps(RankContext& ctx, StageState& state, MicroBatchTensors& tensors)
    : ctx_(ctx), state_(state), tensors_(tensors) {
  for (const auto& op : ctx.ops)
    if (const auto* c = op.as<CollectiveOp>(); c && !executors_.count(c->group))
      executors_[c->group] = std::make_unique<SerialExecutor>();
}

PendingOp TransferOps::send(int i, const SendOp& s) {
  // Checks the tensor against the Program's bytes and posts it; the pending op keeps it alive.
  const auto post = [&](const torch::Tensor& wire) {
    check_bytes(ctx_.rank(), i, ctx_.op(i), s.bytes, static_cast<double>(wire.nbytes()));
    std::vector<torch::Tensor> v{wire};
    PendingOp p;
    p.works.push_back(ctx_.cluster.sends_to(s.peer).send(v, s.peer, s.tag));
    p.bytes = static_cast<double>(wire.nbytes());
    p.keep_alive = wire;
    return p;
  };
  const auto what = ctx_.plan.carries[static_cast<std::size_t>(i)];
  const auto& on = ctx_.device.wire();
  if (what == Payload::state) return post(state_.training_state().to(on));
  if (what == Payload::gradients || what == Payload::weights) {
    // Parameter-server traffic (HetPipe): the stage's flat gradients (push; the virtual worker
    // keeps none) or its weights (the server's reply), in the gradient dtype.
    const auto type = scalar_type(ctx_.job.model.gradient_dtype);
    auto wire = (what == Payload::gradients ? state_.flat_grad() : state_.flat_weights()).to(on, type).clone();
    if (what == Payload::gradients && !ctx_.plan.keeps_gradients[static_cast<std::size_t>(i)])
      state_.flat_grad().zero_();
    return post(wire);
  }
  const int mb = ctx_.plan.carries_micro_batch.at(static_cast<std::size_t>(i));
  auto& from = what == Payload::activation ? tensors_.act_out : tensors_.grad_out;
  const auto it = from.find(mb);
  if (it == from.end())
    throw InputError(fmt::format("Program rank {} op {} ('{}'): sends micro-batch {} before the "
                                 "compute op that produces it", ctx_.rank(), i, ctx_.op(i).label, mb));
  auto wire = it->second.to(on, scalar_type(ctx_.job.model.dtype)).contiguous();
  from.erase(it);
  return post(wire);
}

PendingOp TransferOps::recv(int i, const RecvOp& r) {
  // Posts a receive into `wire` after checking its size against the Program's bytes.
  const auto post = [&](const torch::Tensor& wire) {
    check_bytes(ctx_.rank(), i, ctx_.op(i), r.bytes, static_cast<double>(wire.nbytes()));
    std::vector<torch::Tensor> v{wire};
    PendingOp p;
    p.works.push_back(ctx_.cluster.receives_from(r.peer).recv(v, r.peer, r.tag));
    return p;
  };
  const auto what = ctx_.plan.carries[static_cast<std::size_t>(i)];
  const auto on = torch::TensorOptions().device(ctx_.device.wire());
  if (what == Payload::state) {  // a DiLoCo worker rejoining: the peer's state replaces ours
    auto wire = torch::empty({2 * state_.parameter_count()}, on.dtype(torch::kFloat32));
    PendingOp p = post(wire);
    p.on_done = [this, wire] { state_.load_training_state(wire); };
    return p;
  }
  if (what == Payload::gradients || what == Payload::weights) {
    auto wire = torch::empty({state_.parameter_count()}, on.dtype(scalar_type(ctx_.job.model.gradient_dtype)));
    PendingOp p = post(wire);
    // Pushed gradients wait for the server's next optimizer op; pulled weights replace ours.
    if (what == Payload::gradients) p.on_done = [this, wire] { state_.push_gradients(wire); };
    else p.on_done = [this, wire] { state_.set_weights(wire.to(torch::kFloat32)); };
    return p;
  }
  const int mb = ctx_.plan.carries_micro_batch.at(static_cast<std::size_t>(i));
  const std::int64_t n = ctx_.plan.micro_batch(mb).sequences;
  auto wire = torch::empty({n, ctx_.job.model.seq_len, ctx_.job.model.d_model}, on.dtype(scalar_type(ctx_.job.model.dtype)));
  PendingOp p = post(wire);
  auto& into = what == Payload::activation ? tensors_.act_in : tensors_.grad_in;
  p.on_done = [&into, mb, wire, compute = ctx_.device.compute()] { into[mb] = wire.to(compute, torch::kFloat32); };
  tensors_.recv_op[{mb, what}] = i;
  return p;
}

PendingOp TransferOps::collective(int i, const CollectiveOp& c) {
  if (c.compression.kind != CompressionKind::none) return compressed_collective(i, c);
  if (c.payload == Payload::weights) return weights_collective(i, c);
  const DType wire_dt = wire_dtype(ctx_.job, c.payload);
  const auto gbytes = static_cast<double>(dtype_bytes(wire_dt));
  const auto elements = static_cast<std::int64_t>(c.bytes / gbytes);
  if (static_cast<double>(elements) * gbytes != c.bytes || grad_cursor_ + elements > state_.parameter_count())
    throw InputError(fmt::format("collective of {} bytes at gradient element {} of {} ({} bytes "
                                 "each): not a whole slice of this stage's gradient",
                                 c.bytes, grad_cursor_, state_.parameter_count(), gbytes));
  auto slice = state_.flat_grad().narrow(0, grad_cursor_, elements);
  if (completes_gradient_slice(c.kind)) grad_cursor_ += elements;
  return reduce_slice(c, slice);
}

PendingOp TransferOps::collective_on(int i, const CollectiveOp& c, torch::Tensor buffer) {
  if (c.kind != CollectiveKind::allreduce)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): a fragment's pseudo-gradient is averaged by "
                                 "an all-reduce", ctx_.rank(), i, ctx_.op(i).label));
  if (c.compression.kind != CompressionKind::none) {
    if (static_cast<double>(buffer.numel()) != static_cast<double>(compressed_elements(c)))
      throw InputError(fmt::format("Program rank {} op {} ('{}'): compresses {} elements, its buffer has {}",
                                   ctx_.rank(), i, ctx_.op(i).label, compressed_elements(c), buffer.numel()));
    return compressed_collective(i, c, false);  // the encoder took the buffer
  }
  const DType wire_dt = wire_dtype(ctx_.job, c.payload);
  check_bytes(ctx_.rank(), i, ctx_.op(i), c.bytes,
              static_cast<double>(buffer.numel()) * static_cast<double>(dtype_bytes(wire_dt)));
  return reduce_slice(c, std::move(buffer));
}

PendingOp TransferOps::reduce_slice(const CollectiveOp& c, torch::Tensor slice) {
  const DType wire_dt = wire_dtype(ctx_.job, c.payload);
  const bool library = ctx_.options.library_collectives;
  const auto wire_type = scalar_type(wire_dt);
  const auto wire_device = ctx_.device.wire();
  // The gradient is reduced in place unless it travels in another dtype or lives elsewhere than
  // the wire (a GPU's gradient on Gloo): then through a copy, whose time is part of the op's.
  const bool in_place = wire_type == torch::kFloat32 && slice.device() == wire_device;
  return on_group_thread(c.group, [this, c, slice, library, wire_type, wire_device, in_place]() mutable {
    auto wire = in_place ? slice : slice.to(wire_device, wire_type);
    const double sent = run_collective(ctx_.cluster, ctx_.job.program, c, wire, library);
    if (!in_place) slice.copy_(wire);
    return sent;
  });
}

// Local SGD: the whole stage's weights, averaged across the group (the collective averages where
// its reduction completes), replace this rank's once the op is complete, never from the
// collective's thread while the rank may be computing.
PendingOp TransferOps::weights_collective(int i, const CollectiveOp& c) {
  const DType dt = wire_dtype(ctx_.job, c.payload);
  const double expected = static_cast<double>(state_.parameter_count()) * static_cast<double>(dtype_bytes(dt));
  if (c.bytes != expected)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): averages {} bytes of weights but the "
                                 "stage's {} parameters are {} bytes in {} (expected one collective "
                                 "over all of them)",
                                 ctx_.rank(), i, ctx_.op(i).label, c.bytes, state_.parameter_count(),
                                 expected, dtype_name(dt)));
  auto wire = state_.flat_weights().to(ctx_.device.wire(), scalar_type(dt)).contiguous();
  const bool library = ctx_.options.library_collectives;
  PendingOp p = on_group_thread(
      c.group, [this, c, wire, library] { return run_collective(ctx_.cluster, ctx_.job.program, c, wire, library); });
  p.on_done = [this, wire] { state_.set_weights(wire.to(torch::kFloat32)); };
  return p;
}

torch::Tensor TransferOps::compressed_buffer(int i, const CollectiveOp& c) {
  if (c.payload == Payload::weights) return state_.flat_weights();
  const auto elements = static_cast<std::int64_t>(compressed_elements(c));
  if (grad_cursor_ + elements > state_.parameter_count())
    throw InputError(fmt::format("Program rank {} op {} ('{}'): a compressed collective of {} elements at "
                                 "gradient element {} of {}", ctx_.rank(), i, ctx_.op(i).label, elements,
                                 grad_cursor_, state_.parameter_count()));
  return state_.flat_grad().narrow(0, grad_cursor_, elements);
}

// The encoder runs before its collective, so the gradient cursor still points at its slice; the
// residual is named by payload and slice, so DiLoCo's per-membership averages share one.
void TransferOps::encode(int i) {
  const auto& c = *ctx_.op(i).as<CollectiveOp>();
  encode(i, compressed_buffer(i, c), c.payload == Payload::weights ? 0 : grad_cursor_);
}

// Runs on the group's thread like any collective; the decoder comes after it completes (right
// after a blocking one, after the Wait of a nonblocking one: program validation).
PendingOp TransferOps::compressed_collective(int i, const CollectiveOp& c, bool cursor) {
  if (ctx_.options.library_collectives)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): compression {} needs the Program's ring "
                                 "(--collectives p2p), not the library's all-reduce", ctx_.rank(), i,
                                 ctx_.op(i).label, to_string(c.compression.kind)));
  if (cursor && c.payload != Payload::weights && completes_gradient_slice(c.kind))
    grad_cursor_ += static_cast<std::int64_t>(compressed_elements(c));
  const int n = static_cast<int>(ctx_.job.program.group(c.group).ranks.size());
  const int position = ctx_.cluster.position(c.group);
  const auto it = exchanges_.find(i);
  if (it == exchanges_.end())
    throw InputError(fmt::format("Program rank {} op {} ('{}'): a compressed collective without its encoder "
                                 "before it", ctx_.rank(), i, ctx_.op(i).label));
  return on_group_thread(c.group, [this, c, n, position, exchange = &it->second, wire = ctx_.device.wire()] {
    return exchange->exchange(ctx_.cluster, ctx_.job.program, c, n, position, wire);
  });
}

// The decoder writes the average where the collective's buffer was (the cursor has moved past it).
void TransferOps::decode(int i) {
  const auto& c = *ctx_.op(i).as<CollectiveOp>();
  if (c.payload == Payload::weights) {
    const int n = static_cast<int>(ctx_.job.program.group(c.group).ranks.size());
    state_.set_weights(exchanges_.at(i).decode(c, n).to(ctx_.device.compute()));
    return;
  }
  const auto elements = static_cast<std::int64_t>(compressed_elements(c));
  decode(i, state_.flat_grad().narrow(0, grad_cursor_ - elements, elements));
}

void TransferOps::encode(int i, const torch::Tensor& buffer, std::int64_t residual_at) {
  const auto& c = *ctx_.op(i).as<CollectiveOp>();
  const int n = static_cast<int>(ctx_.job.program.group(c.group).ranks.size());
  exchanges_[i].encode(c, n, ctx_.cluster.position(c.group), buffer, residuals_[{static_cast<int>(c.payload), residual_at}]);
}

void TransferOps::decode(int i, torch::Tensor buffer) {
  const auto& c = *ctx_.op(i).as<CollectiveOp>();
  const int n = static_cast<int>(ctx_.job.program.group(c.group).ranks.size());
  buffer.copy_(exchanges_.at(i).decode(c, n));
}

PendingOp TransferOps::on_group_thread(GroupId group, std::function<double()> transfer) {
  PendingOp p;
  p.end_s = std::make_shared<double>(0);
  p.sent = std::make_shared<double>(0);
  p.future = executors_.at(group)->submit([this, transfer = std::move(transfer), end = p.end_s, sent = p.sent] {
    *sent = transfer();
    *end = ctx_.cluster.now_s();
  });
  return p;
}

}  // namespace geotrain
