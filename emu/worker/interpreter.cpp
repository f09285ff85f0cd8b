#include "emu/worker/interpreter.hpp"

#include <cmath>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "emu/worker/collective_runner.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"
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

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const WorkerJob& job,
                                                        std::vector<torch::Tensor> params) {
  switch (job.optimizer) {
    case Optimizer::sgd:
      return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(job.learning_rate));
    case Optimizer::adam:
      return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(job.learning_rate));
    case Optimizer::adamw:
      return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(job.learning_rate));
  }
  throw InputError("unknown optimizer");
}

}  // namespace

Interpreter::Interpreter(const WorkerJob& job, const WorkerOptions& options, Cluster& cluster)
    : job_(job),
      options_(options),
      cluster_(cluster),
      plan_(make_rank_plan(job.program, options.rank, job.model.layers)),
      source_(job.model.vocab, job.markov_successors, options.seed),
      stage_(job.model, plan_.layer_begin, plan_.layer_end, job.tie_embeddings, options.seed),
      optimizer_(make_optimizer(job, stage_.parameters())),
      measurements_(options.rank, {}, {}),
      ops_(job.program.ranks.at(static_cast<std::size_t>(options.rank))),
      stragglers_(job.stragglers) {
  if (static_cast<std::size_t>(options.rank) < job.slowdown_of_rank.size())
    slowdown_ = job.slowdown_of_rank[static_cast<std::size_t>(options.rank)];
  std::vector<std::string> labels, kinds;
  const double grad_bytes = static_cast<double>(dtype_bytes(job.model.gradient_dtype));
  // DiLoCo's pseudo-gradient op: the first op of a pseudo-gradient phase (an `other` Compute op).
  const auto phase = pseudo_gradient_phase(ops_);
  pseudo_gradient_op_.assign(ops_.size(), false);
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    if (phase[i] && (i == 0 || !phase[i - 1])) pseudo_gradient_op_[i] = true;
    if (const auto* c = ops_[i].as<ComputeOp>(); c && c->kind == ComputeKind::outer_optimizer) has_outer_ = true;
  }
  for (const auto& op : ops_) {
    labels.push_back(op.label);
    kinds.push_back(kind_name(op));
    if (const auto* c = op.as<CollectiveOp>(); c && !executors_.count(c->group))
      executors_[c->group] = std::make_unique<SerialExecutor>();
  }
  measurements_ = Measurements(options.rank, labels, kinds);
  if (!options.progress_path.empty()) progress_ = std::make_unique<ProgressMap>(options.progress_path, false);
  measurements_.reserve(ops_.size() * static_cast<std::size_t>(std::max(options.steps, 1)));
  const double params_bytes = static_cast<double>(stage_.parameter_count()) * grad_bytes;
  // Checked in every epoch: with iteration ranges (DiLoCo churn) a rank has one averaging op
  // per membership, only one of them active at a time.
  for (const int first : program_epochs(job.program)) {
    double slice_bytes = 0;
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      const auto* c = ops_[i].as<CollectiveOp>();
      if (!c || c->payload == Payload::weights || !ops_[i].active_in(first) ||
          !completes_gradient_slice(c->kind))
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
                                   options.rank, slice_bytes, first, plan_.stage, plan_.layer_begin,
                                   plan_.layer_end, stage_.parameter_count(), params_bytes,
                                   dtype_name(job.model.gradient_dtype)));
  }
  start_coordinators();
}

std::pair<torch::Tensor, torch::Tensor> Interpreter::batch(int mb) const {
  const auto& slice = plan_.micro_batch(mb);
  const int S = job_.model.seq_len;
  auto tokens = torch::empty({slice.sequences, S}, torch::kLong);
  auto targets = torch::empty({slice.sequences, S}, torch::kLong);
  auto* tk = tokens.data_ptr<std::int64_t>();
  auto* tg = targets.data_ptr<std::int64_t>();
  for (int j = 0; j < slice.sequences; ++j) {
    // DistributedSampler: replica r reads sequences r, r + R, ... of the global batch.
    const auto local = static_cast<std::uint64_t>(slice.offset + j);
    const auto data_step = static_cast<std::uint64_t>(step_) * static_cast<std::uint64_t>(plan_.passes) +
                           static_cast<std::uint64_t>(pass_);
    const auto global = data_step * static_cast<std::uint64_t>(plan_.global_sequences) +
                        local * static_cast<std::uint64_t>(plan_.replicas) + static_cast<std::uint64_t>(plan_.replica);
    const auto seq = source_.sequence(global, S + 1);
    std::copy(seq.begin(), seq.end() - 1, tk + static_cast<std::ptrdiff_t>(j) * S);
    std::copy(seq.begin() + 1, seq.end(), tg + static_cast<std::ptrdiff_t>(j) * S);
  }
  return {tokens, targets};
}

void Interpreter::run_step(int step) {
  step_ = step;
  grad_cursor_ = 0;
  loss_ = 0;
  pass_ = passes_seen_ = 0;
  const double start = cluster_.now_s();
  if (has_outer_) round_start_ = flat_weights();  // one DiLoCo outer round per iteration
  bool active = false;  // a DiLoCo worker away in this round has no active op
  for (std::size_t i = 0; i < ops_.size(); ++i)
    if (ops_[i].active_in(step)) {
      active = true;
      execute(static_cast<int>(i), ops_[i]);
    }
  while (!pending_.empty()) complete(pending_.begin()->first);  // ops the Program never waited
  const double time_s = cluster_.now_s() - start;
  if (!active) {  // no loss, no tokens: the step's figures come from the ranks that ran it
    measurements_.record_iteration({step, time_s, std::nan(""), 0});
    if (progress_) progress_->end_step(time_s, std::nan(""), 0);
    return;
  }
  loss_ /= plan_.passes;  // the mean over the iteration's passes (DiLoCo's inner steps)
  const double tokens = static_cast<double>(plan_.global_sequences) * plan_.passes * job_.model.seq_len;
  measurements_.record_iteration(
      {step, time_s, plan_.last_stage() ? loss_ : std::nan(""), tokens / time_s});
  if (progress_) progress_->end_step(time_s, plan_.last_stage() ? loss_ : std::nan(""), tokens / time_s);
}

std::string Interpreter::weights_fingerprint() {
  const auto w = flat_weights().to(torch::kFloat32).contiguous();
  const auto* bytes = static_cast<const unsigned char*>(w.data_ptr());
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < w.nbytes(); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

void Interpreter::execute(int i, const Op& op) {
  try {
    if (progress_) progress_->begin_op(step_, i);
    const double start = cluster_.now_s();
    Pending p;
    if (const auto* c = op.as<ComputeOp>()) {
      // The simulator's seeded straggler sleep, inside the op's time as there.
      if (const double sleep = stragglers_.sleep_s(options_.rank, step_, i, op); sleep > 0)
        std::this_thread::sleep_for(std::chrono::duration<double>(sleep));
      const double compute_start = cluster_.now_s();
      if (pseudo_gradient_op_[static_cast<std::size_t>(i)]) pseudo_gradient();
      else compute(*c);
      // A slower device (devices.overrides slowdown): the same work, (slowdown - 1) x longer.
      if (slowdown_ > 1)
        std::this_thread::sleep_for(std::chrono::duration<double>((slowdown_ - 1) * (cluster_.now_s() - compute_start)));
    } else if (const auto* s = op.as<SendOp>()) {
      p = send(i, *s);
    } else if (const auto* r = op.as<RecvOp>()) {
      p = recv(i, *r);
    } else if (const auto* coll = op.as<CollectiveOp>()) {
      p = collective(i, *coll);
    } else if (const auto* w = op.as<WaitOp>()) {
      for (int j : w->ops)
        if (pending_.count(j)) complete(j);
    } else if (const auto* d = op.as<DynamicOp>()) {
      p.bytes = dynamic(i, *d);
    }
    p.start_s = start;
    const bool in_flight = !p.works.empty() || p.future.valid();
    if (in_flight) {
      pending_[i] = std::move(p);
      if (!op.nonblocking) complete(i);
    } else if (!op.as<WaitOp>()) {
      measurements_.record_op({step_, i, start, cluster_.now_s(), p.bytes});
    } else {
      measurements_.record_op({step_, i, start, cluster_.now_s(), 0});
    }
  } catch (const Error&) {
    throw;  // ours already name the rank and op (or are input errors)
  } catch (const std::exception& e) {
    fail(i, e.what(), false);
  }
}

void Interpreter::fail(int i, const std::string& what, bool timeout) const {
  // c10d messages carry a stack trace after the first line: keep the first line only.
  const auto msg = fmt::format("rank {} step {} op {} ('{}'): {}", options_.rank, step_, i,
                               ops_.at(static_cast<std::size_t>(i)).label,
                               what.substr(0, what.find('\n')));
  if (timeout) throw TimeoutError(msg, options_.timeout_s);
  throw Error(msg);
}

void Interpreter::wait_for_transfer(int mb, Payload what) {
  const auto it = transfer_op_.find({mb, static_cast<int>(what)});
  if (it == transfer_op_.end()) return;
  const int op = it->second;
  transfer_op_.erase(it);
  if (pending_.count(op)) complete(op);
}

void Interpreter::compute(const ComputeOp& c) {
  const int L = job_.model.layers;
  if (c.kind == ComputeKind::forward) {
    if (c.micro_batch == plan_.micro_batches.front().id && c.layer_begin == plan_.layer_begin)
      pass_ = passes_seen_++;
    torch::Tensor input, targets;
    if (c.layer_begin == 0) {
      std::tie(input, targets) = batch(c.micro_batch);
    } else {
      if (c.layer_begin == plan_.layer_begin) wait_for_transfer(c.micro_batch, Payload::activation);
      input = act_in_[c.micro_batch];
      if (c.layer_end == L) targets = batch(c.micro_batch).second;
    }
    if (c.layer_end == L && c.layer_begin == 0) targets = batch(c.micro_batch).second;
    auto out = stage_.forward(c.micro_batch, c.layer_begin, c.layer_end, input, targets);
    act_in_.erase(c.micro_batch);
    const double weight = static_cast<double>(plan_.micro_batch(c.micro_batch).sequences) / plan_.replica_sequences;
    if (c.layer_end == L) loss_ += out.item<double>() * weight;
    else act_out_[c.micro_batch] = out;
  } else if (c.kind == ComputeKind::backward) {
    if (c.layer_end == plan_.layer_end && !plan_.last_stage())
      wait_for_transfer(c.micro_batch, Payload::activation_grad);
    const double weight = static_cast<double>(plan_.micro_batch(c.micro_batch).sequences) / plan_.replica_sequences;
    auto g = stage_.backward(c.micro_batch, c.layer_begin, c.layer_end, grad_in_[c.micro_batch], weight);
    grad_in_.erase(c.micro_batch);
    if (g.defined() && c.layer_begin == plan_.layer_begin) grad_out_[c.micro_batch] = g;
  } else if (c.kind == ComputeKind::optimizer) {
    std::vector<int> open;  // gradient syncs the Program left open
    for (const auto& [i, p] : pending_)
      if (p.future.valid()) open.push_back(i);
    for (int i : open) complete(i);
    if (grad_cursor_ != 0 && grad_cursor_ != stage_.parameter_count())
      throw InputError(fmt::format("optimizer step after collectives covered {} of {} gradient "
                                   "elements", grad_cursor_, stage_.parameter_count()));
    if (!pushed_.empty()) {  // HetPipe's server applies a virtual worker's pushed gradients
      stage_.flat_grad().copy_(pushed_.front());
      pushed_.pop_front();
    }
    optimizer_->step();
    stage_.flat_grad().zero_();
  } else if (c.kind == ComputeKind::outer_optimizer) {
    outer_step();
  } else if (c.kind == ComputeKind::other) {
    // e.g. the parameter server's "average" op: the worker averages inside the gather that
    // completes the sum (collective_runner.hpp), so there is nothing left to compute here.
  } else {
    throw InputError(fmt::format("Compute kind '{}' is not implemented by the worker",
                                 json_name(c.kind)));
  }
}

}  // namespace geotrain

namespace geotrain {

namespace {

void write_summary(Interpreter& in, const WorkerOptions& o, const std::string& path) {
  const auto& p = in.plan();
  const nlohmann::json j = {{"rank", o.rank},
                            {"weights_fnv1a", in.weights_fingerprint()},
                            {"stage", p.stage},
                            {"stages", p.stages},
                            {"replica", p.replica},
                            {"replicas", p.replicas},
                            {"layer_begin", p.layer_begin},
                            {"layer_end", p.layer_end},
                            {"parameters", in.parameter_count()},
                            {"entropy_rate_nats", in.source().entropy_rate_nats()},
                            {"steps", o.steps},
                            {"seed", o.seed},
                            {"threads", o.threads},
                            {"collectives", o.library_collectives ? "gloo" : "p2p"}};
  std::ofstream out(path);
  out << j.dump(1) << '\n';
  if (!out) throw Error("cannot write " + path);
}

}  // namespace

void run_worker(const WorkerJob& job, const WorkerOptions& options) {
  if (options.rank < 0 || options.rank >= job.program.world_size)
    throw InputError(fmt::format("--rank {} outside the Program's world of {} ranks", options.rank,
                                 job.program.world_size));
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  ClusterOptions co{options.rank, options.store_addr, options.store_port, options.bind_addr,
                    options.timeout_s};
  // On failure the cluster is deliberately not destroyed: Gloo threads may still be blocked on
  // a dead peer and their destructors would hang; the process exits right after the error.
  std::unique_ptr<Cluster> cluster;
  try {
    cluster = std::make_unique<Cluster>(co, job.program);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw Error(fmt::format("rank {}: joining the cluster (store {}:{}, Gloo on {}) failed after "
                            "at most {} s: {}",
                            options.rank, options.store_addr, options.store_port, options.bind_addr,
                            options.timeout_s, what.substr(0, what.find('\n'))));
  }
  auto interpreter = std::make_unique<Interpreter>(job, options, *cluster);
  try {
    interpreter->warm_up_dynamic_groups();
    cluster->barrier("start");
    for (int step = 0; step < options.steps; ++step) {
      interpreter->run_step(step);
      const auto& it = interpreter->measurements().iterations().back();
      log::info("emu.worker", "{:.3f} rank {}: step {} done in {:.3f} s, loss {:.4f}",
                cluster->now_s(), options.rank, step, it.time_s, it.loss);
    }
    interpreter->finish();  // coordinators serve peers that may still be in their last step
    cluster->barrier("end");
  } catch (...) {
    interpreter.release();
    cluster.release();
    throw;
  }
  interpreter->measurements().write(options.out_dir);
  write_summary(*interpreter, options, options.out_dir + "/worker.json");
}

}  // namespace geotrain
