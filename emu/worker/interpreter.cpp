#include "emu/worker/interpreter.hpp"

#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "emu/worker/cluster.hpp"
#include "emu/worker/host_cpu.hpp"
#include "sim/common/error.hpp"
#include "sim/program/compression.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain {

namespace {

std::string kind_name(const Op& op) {
  if (const auto* c = op.as<ComputeOp>()) return json_name(c->kind);
  if (op.as<SendOp>()) return "send";
  if (op.as<RecvOp>()) return "recv";
  if (const auto* c = op.as<CollectiveOp>()) return json_name(c->kind);
  if (op.as<DynamicOp>()) return "dynamic";
  return "wait";
}

Measurements make_measurements(int rank, const std::vector<Op>& ops, int steps) {
  std::vector<std::string> labels, kinds;
  for (const auto& op : ops) {
    labels.push_back(op.label);
    kinds.push_back(kind_name(op));
  }
  Measurements m(rank, labels, kinds);
  m.reserve(ops.size() * static_cast<std::size_t>(std::max(steps, 1)));
  return m;
}

}  // namespace

Interpreter::Interpreter(const WorkerJob& job, const WorkerOptions& options, Cluster& cluster,
                         const ComputeDevice& device)
    : options_(options),
      ops_(job.program.ranks.at(static_cast<std::size_t>(options.rank))),
      plan_(make_rank_plan(job.program, options.rank, job.model.layers)),
      source_(job.model.vocab, job.markov_successors, options.seed),
      measurements_(make_measurements(options.rank, ops_, options.steps)),
      ctx_{job, options_, cluster, device, plan_, ops_, measurements_},
      state_(job, plan_, options.rank, options.seed, device.compute()),
      pending_(ctx_),
      transfers_(ctx_, state_, tensors_),
      dynamic_(ctx_, state_),
      stragglers_(job.stragglers) {
  if (static_cast<std::size_t>(options.rank) < job.slowdown_of_rank.size())
    slowdown_ = job.slowdown_of_rank[static_cast<std::size_t>(options.rank)];
  // DiLoCo's pseudo-gradient op: the first op of a pseudo-gradient phase (an `other` Compute op).
  // Streaming DiLoCo's fragments keep their own state and ops instead.
  fragments_ = FragmentOuterState::for_program(job.program, options.rank, state_);
  const auto phase = pseudo_gradient_phase(ops_);
  pseudo_gradient_op_.assign(ops_.size(), false);
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    if (!fragments_ && phase[i] && (i == 0 || !phase[i - 1])) pseudo_gradient_op_[i] = true;
    if (const auto* c = ops_[i].as<ComputeOp>(); c && c->kind == ComputeKind::outer_optimizer) has_outer_ = true;
  }
  if (!options.progress_path.empty()) progress_ = std::make_unique<ProgressMap>(options.progress_path, false);
  check_gradient_coverage();
}

void Interpreter::check_gradient_coverage() const {
  const WorkerJob& job = ctx_.job;
  const double grad_bytes = static_cast<double>(dtype_bytes(job.model.gradient_dtype));
  const double params_bytes = static_cast<double>(state_.parameter_count()) * grad_bytes;
  // Checked in every epoch: with iteration ranges (DiLoCo churn) a rank has one averaging op
  // per membership, only one of them active at a time.
  for (const int first : program_epochs(job.program)) {
    double slice_bytes = 0;
    for (const auto& op : ops_) {
      const auto* c = op.as<CollectiveOp>();
      if (!c || c->payload == Payload::weights || !op.active_in(first) || !completes_gradient_slice(c->kind))
        continue;
      // The pseudo-gradient travels in the wire dtype: count its slice in gradient-dtype bytes.
      const double scale = c->payload == Payload::pseudo_gradient
                               ? grad_bytes / static_cast<double>(dtype_bytes(job.wire_dtype))
                               : 1;
      slice_bytes += c->bytes * scale;
    }
    if (slice_bytes > 0 && slice_bytes != params_bytes)
      throw InputError(fmt::format("Program rank {}: its gradient collectives cover {} bytes (from "
                                   "iteration {}) but stage {} (layers [{}, {})) has {} parameters "
                                   "= {} bytes of {} gradients (expected them to match)",
                                   options_.rank, slice_bytes, first, plan_.stage, plan_.layer_begin,
                                   plan_.layer_end, state_.parameter_count(), params_bytes,
                                   dtype_name(job.model.gradient_dtype)));
  }
}

std::pair<torch::Tensor, torch::Tensor> Interpreter::batch(int mb) const {
  const auto& slice = plan_.micro_batch(mb);
  const int S = ctx_.job.model.seq_len;
  auto tokens = torch::empty({slice.sequences, S}, torch::kLong);
  auto targets = torch::empty({slice.sequences, S}, torch::kLong);
  auto* tk = tokens.data_ptr<std::int64_t>();
  auto* tg = targets.data_ptr<std::int64_t>();
  for (int j = 0; j < slice.sequences; ++j) {
    // DistributedSampler: replica r reads sequences r, r + R, ... of the global batch.
    const auto local = static_cast<std::uint64_t>(slice.offset + j);
    const auto data_step = static_cast<std::uint64_t>(ctx_.step) * static_cast<std::uint64_t>(plan_.passes) +
                           static_cast<std::uint64_t>(pass_);
    const auto global = data_step * static_cast<std::uint64_t>(plan_.global_sequences) +
                        local * static_cast<std::uint64_t>(plan_.replicas) + static_cast<std::uint64_t>(plan_.replica);
    const auto seq = source_.sequence(global, S + 1);
    std::copy(seq.begin(), seq.end() - 1, tk + static_cast<std::ptrdiff_t>(j) * S);
    std::copy(seq.begin() + 1, seq.end(), tg + static_cast<std::ptrdiff_t>(j) * S);
  }
  const auto& on = ctx_.device.compute();
  return {tokens.to(on), targets.to(on)};
}

void Interpreter::run_step(int step) {
  ctx_.step = step;
  transfers_.reset_gradient_cursor();
  loss_ = 0;
  pass_ = passes_seen_ = 0;
  const double start = ctx_.cluster.now_s();
  if (has_outer_ && !fragments_) state_.begin_round();  // one DiLoCo outer round per iteration
  bool active = false;  // a DiLoCo worker away in this round has no active op
  for (std::size_t i = 0; i < ops_.size(); ++i)
    if (ops_[i].active_in(step)) {
      active = true;
      execute(static_cast<int>(i), ops_[i]);
    }
  pending_.complete_all();  // ops the Program never waited
  const double time_s = ctx_.cluster.now_s() - start;
  if (!active) {  // no loss, no tokens: the step's figures come from the ranks that ran it
    measurements_.record_iteration({step, time_s, std::nan(""), 0, host_busy_cpu_s()});
    if (progress_) progress_->end_step(time_s, std::nan(""), 0);
    return;
  }
  loss_ /= plan_.passes;  // the mean over the iteration's passes (DiLoCo's inner steps)
  const double tokens = static_cast<double>(plan_.global_sequences) * plan_.passes * ctx_.job.model.seq_len;
  const double loss = plan_.last_stage() ? loss_ : std::nan("");
  measurements_.record_iteration({step, time_s, loss, tokens / time_s, host_busy_cpu_s()});
  if (progress_) progress_->end_step(time_s, loss, tokens / time_s);
}

void Interpreter::execute(int i, const Op& op) {
  try {
    if (progress_) progress_->begin_op(ctx_.step, i);
    const double start = ctx_.cluster.now_s();
    PendingOp p;
    double cpu_s = std::nan("");
    if (const auto* c = op.as<ComputeOp>()) {
      const double cpu_start = thread_cpu_s();
      compute(i, *c);
      cpu_s = thread_cpu_s() - cpu_start;
    } else if (const auto* s = op.as<SendOp>()) {
      p = transfers_.send(i, *s);
    } else if (const auto* r = op.as<RecvOp>()) {
      p = transfers_.recv(i, *r);
    } else if (const auto* coll = op.as<CollectiveOp>()) {
      p = fragments_ && coll->payload == Payload::pseudo_gradient
              ? transfers_.collective_on(i, *coll, fragments_->buffer_of(i))
              : transfers_.collective(i, *coll);
    } else if (const auto* w = op.as<WaitOp>()) {
      for (int j : w->ops) pending_.complete(j);
    } else if (const auto* d = op.as<DynamicOp>()) {
      p.bytes = dynamic_.run(i, *d);
    }
    p.start_s = start;
    if (p.in_flight()) {
      pending_.add(i, std::move(p));
      if (!op.nonblocking) pending_.complete(i);
    } else {
      measurements_.record_op({ctx_.step, i, start, ctx_.cluster.now_s(), op.as<WaitOp>() ? 0 : p.bytes, cpu_s});
    }
  } catch (const Error&) {
    throw;  // ours already name the rank and op (or are input errors)
  } catch (const std::exception& e) {
    ctx_.fail(i, e.what(), false);
  }
}

void Interpreter::wait_for_transfer(int mb, Payload what) {
  const auto it = tensors_.recv_op.find({mb, what});
  if (it == tensors_.recv_op.end()) return;
  const int op = it->second;
  tensors_.recv_op.erase(it);
  pending_.complete(op);
}

void Interpreter::compute(int i, const ComputeOp& c) {
  // The simulator's seeded straggler sleep, inside the op's time as there.
  if (const double sleep = stragglers_.sleep_s(options_.rank, ctx_.step, i, ops_[static_cast<std::size_t>(i)]); sleep > 0)
    std::this_thread::sleep_for(std::chrono::duration<double>(sleep));
  const double compute_start = ctx_.cluster.now_s();
  if (fragments_ && fragments_->runs(i)) {
    fragments_->run(i);
  } else if (pseudo_gradient_op_[static_cast<std::size_t>(i)]) {
    state_.pseudo_gradient();
  } else if (c.kind == ComputeKind::forward) {
    forward(c);
  } else if (c.kind == ComputeKind::backward) {
    backward(c);
  } else if (c.kind == ComputeKind::optimizer) {
    optimizer_step();
  } else if (c.kind == ComputeKind::outer_optimizer) {
    state_.outer_step();
    transfers_.reset_gradient_cursor();
  } else if (c.kind == ComputeKind::other) {
    // A compressed collective's codec ops do their work here, so it is measured as compute
    // (compressed_exchange.hpp). Other such ops, e.g. the parameter server's "average": the
    // worker averages inside the gather that completes the sum (collective_runner.hpp), so there
    // is nothing left to compute here.
    const auto role = codec_role(ops_, static_cast<std::size_t>(i));
    if (role != CodecRole::none) {
      const int j = static_cast<int>(codec_collective(ops_, static_cast<std::size_t>(i)));
      // A Streaming DiLoCo fragment's exchange compresses the fragment's own buffer.
      const bool fragment = fragments_ && ops_[static_cast<std::size_t>(j)].as<CollectiveOp>()->payload ==
                                              Payload::pseudo_gradient;
      if (role == CodecRole::encode && fragment) transfers_.encode(j, fragments_->buffer_of(j), fragments_->offset_of(j));
      else if (role == CodecRole::encode) transfers_.encode(j);
      else if (fragment) transfers_.decode(j, fragments_->buffer_of(j));
      else transfers_.decode(j);
    }
  } else {
    throw InputError(fmt::format("Compute kind '{}' is not implemented by the worker", json_name(c.kind)));
  }
  // On a GPU the op ends when its kernels have run, not when they were queued.
  ctx_.device.synchronize();
  // A slower device (devices.overrides slowdown): the same work, (slowdown - 1) x longer.
  if (slowdown_ > 1)
    std::this_thread::sleep_for(std::chrono::duration<double>((slowdown_ - 1) * (ctx_.cluster.now_s() - compute_start)));
}

void Interpreter::forward(const ComputeOp& c) {
  const int L = ctx_.job.model.layers;
  if (c.micro_batch == plan_.micro_batches.front().id && c.layer_begin == plan_.layer_begin)
    pass_ = passes_seen_++;
  torch::Tensor input, targets;
  if (c.layer_begin == 0) {
    std::tie(input, targets) = batch(c.micro_batch);
  } else {
    if (c.layer_begin == plan_.layer_begin) wait_for_transfer(c.micro_batch, Payload::activation);
    input = tensors_.act_in[c.micro_batch];
    if (c.layer_end == L) targets = batch(c.micro_batch).second;
  }
  if (c.layer_end == L && c.layer_begin == 0) targets = batch(c.micro_batch).second;
  auto out = state_.model().forward(c.micro_batch, c.layer_begin, c.layer_end, input, targets);
  tensors_.act_in.erase(c.micro_batch);
  const double weight = static_cast<double>(plan_.micro_batch(c.micro_batch).sequences) / plan_.replica_sequences;
  if (c.layer_end == L) loss_ += out.item<double>() * weight;
  else tensors_.act_out[c.micro_batch] = out;
}

void Interpreter::backward(const ComputeOp& c) {
  if (c.layer_end == plan_.layer_end && !plan_.last_stage())
    wait_for_transfer(c.micro_batch, Payload::activation_grad);
  const double weight = static_cast<double>(plan_.micro_batch(c.micro_batch).sequences) / plan_.replica_sequences;
  auto g = state_.model().backward(c.micro_batch, c.layer_begin, c.layer_end, tensors_.grad_in[c.micro_batch], weight);
  tensors_.grad_in.erase(c.micro_batch);
  if (g.defined() && c.layer_begin == plan_.layer_begin) tensors_.grad_out[c.micro_batch] = g;
}

void Interpreter::optimizer_step() {
  pending_.complete_collectives();  // gradient syncs the Program left open
  const auto cursor = transfers_.gradient_cursor();
  if (cursor != 0 && cursor != state_.parameter_count())
    throw InputError(fmt::format("optimizer step after collectives covered {} of {} gradient elements",
                                 cursor, state_.parameter_count()));
  // HetPipe's server applies a virtual worker's pushed gradients (StageState::optimizer_step).
  state_.optimizer_step();
}

}  // namespace geotrain
