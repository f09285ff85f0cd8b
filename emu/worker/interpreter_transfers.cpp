// Interpreter: the ops that move bytes (Send, Recv, Collective) and their completion.
#include <fmt/format.h>

#include "emu/worker/collective_runner.hpp"
#include "emu/worker/interpreter.hpp"
#include "sim/common/error.hpp"

namespace geotrain {

namespace {

torch::ScalarType scalar_type(DType t) {
  return t == DType::fp32 ? torch::kFloat32 : t == DType::fp16 ? torch::kFloat16 : torch::kBFloat16;
}


void check_bytes(int rank, int i, const Op& op, double program_bytes, double tensor_bytes) {
  if (program_bytes != tensor_bytes)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): {} bytes in the Program but the "
                                 "tensor it carries has {} bytes",
                                 rank, i, op.label, program_bytes, tensor_bytes));
}

}  // namespace

Interpreter::Pending Interpreter::send(int i, const SendOp& s) {
  // Checks the tensor against the Program's bytes and posts it; the pending op keeps it alive.
  const auto post = [&](const torch::Tensor& wire) {
    check_bytes(options_.rank, i, ops_[static_cast<std::size_t>(i)], s.bytes, static_cast<double>(wire.nbytes()));
    std::vector<torch::Tensor> v{wire};
    Pending p;
    p.works.push_back(cluster_.world().send(v, s.peer, s.tag));
    p.bytes = static_cast<double>(wire.nbytes());
    p.keep_alive = wire;
    return p;
  };
  const auto what = plan_.carries[static_cast<std::size_t>(i)];
  if (what == Payload::state) return post(training_state());
  if (what == Payload::gradients || what == Payload::weights) {
    // Parameter-server traffic (HetPipe): the stage's flat gradients (push; the virtual worker
    // keeps none) or its weights (the server's reply), in the gradient dtype.
    const auto type = scalar_type(job_.model.gradient_dtype);
    auto wire = (what == Payload::gradients ? stage_.flat_grad() : flat_weights()).to(type).clone();
    if (what == Payload::gradients && !plan_.keeps_gradients[static_cast<std::size_t>(i)])
      stage_.flat_grad().zero_();
    return post(wire);
  }
  const int mb = plan_.carries_micro_batch.at(static_cast<std::size_t>(i));
  auto& from = plan_.carries[static_cast<std::size_t>(i)] == Payload::activation ? act_out_ : grad_out_;
  const auto it = from.find(mb);
  if (it == from.end())
    throw InputError(fmt::format("Program rank {} op {} ('{}'): sends micro-batch {} before the "
                                 "compute op that produces it", options_.rank, i, ops_[static_cast<std::size_t>(i)].label, mb));
  auto wire = it->second.to(scalar_type(job_.model.dtype)).contiguous();
  from.erase(it);
  return post(wire);
}

Interpreter::Pending Interpreter::recv(int i, const RecvOp& r) {
  const auto what = plan_.carries[static_cast<std::size_t>(i)];
  if (what == Payload::state) {  // a DiLoCo worker rejoining: the peer's state replaces ours
    auto wire = torch::empty({2 * stage_.parameter_count()}, torch::kFloat32);
    check_bytes(options_.rank, i, ops_[static_cast<std::size_t>(i)], r.bytes, static_cast<double>(wire.nbytes()));
    std::vector<torch::Tensor> v{wire};
    Pending p;
    p.works.push_back(cluster_.world().recv(v, r.peer, r.tag));
    p.on_done = [this, wire] { load_training_state(wire); };
    return p;
  }
  if (what == Payload::gradients || what == Payload::weights) {
    auto wire = torch::empty({stage_.parameter_count()}, scalar_type(job_.model.gradient_dtype));
    check_bytes(options_.rank, i, ops_[static_cast<std::size_t>(i)], r.bytes, static_cast<double>(wire.nbytes()));
    std::vector<torch::Tensor> v{wire};
    Pending p;
    p.works.push_back(cluster_.world().recv(v, r.peer, r.tag));
    // Pushed gradients wait for the server's next optimizer op; pulled weights replace ours.
    if (what == Payload::gradients)
      p.on_done = [this, wire] { pushed_.push_back(wire.to(torch::kFloat32)); };
    else
      p.on_done = [this, wire] { set_weights(wire.to(torch::kFloat32)); };
    return p;
  }
  const int mb = plan_.carries_micro_batch.at(static_cast<std::size_t>(i));
  const std::int64_t n = plan_.micro_batch(mb).sequences;
  auto wire = torch::empty({n, job_.model.seq_len, job_.model.d_model}, scalar_type(job_.model.dtype));
  check_bytes(options_.rank, i, ops_[static_cast<std::size_t>(i)], r.bytes, static_cast<double>(wire.nbytes()));
  std::vector<torch::Tensor> v{wire};
  Pending p;
  p.works.push_back(cluster_.world().recv(v, r.peer, r.tag));
  auto& into = what == Payload::activation ? act_in_ : grad_in_;
  p.on_done = [&into, mb, wire] { into[mb] = wire.to(torch::kFloat32); };
  transfer_op_[{mb, static_cast<int>(what)}] = i;
  return p;
}

Interpreter::Pending Interpreter::collective(int i, const CollectiveOp& c) {
  if (c.payload == Payload::weights) return weights_collective(i, c);
  const DType wire_dt = wire_dtype(c.payload);
  const auto gbytes = static_cast<double>(dtype_bytes(wire_dt));
  const auto elements = static_cast<std::int64_t>(c.bytes / gbytes);
  if (static_cast<double>(elements) * gbytes != c.bytes ||
      grad_cursor_ + elements > stage_.parameter_count())
    throw InputError(fmt::format("collective of {} bytes at gradient element {} of {} ({} bytes "
                                 "each): not a whole slice of this stage's gradient",
                                 c.bytes, grad_cursor_, stage_.parameter_count(), gbytes));
  auto slice = stage_.flat_grad().narrow(0, grad_cursor_, elements);
  if (completes_gradient_slice(c.kind)) grad_cursor_ += elements;
  const bool library = options_.library_collectives;
  const auto wire_type = scalar_type(wire_dt);
  return on_group_thread(c.group, [this, c, slice, library, wire_type]() mutable {
    auto wire = wire_type == torch::kFloat32 ? slice : slice.to(wire_type);
    const double sent = run_collective(cluster_, job_.program, c, wire, library);
    if (wire_type != torch::kFloat32) slice.copy_(wire);
    return sent;
  });
}

// Local SGD: the whole stage's weights, averaged across the group (the collective averages where
// its reduction completes), replace this rank's once the op is complete, never from the
// collective's thread while the rank may be computing.
Interpreter::Pending Interpreter::weights_collective(int i, const CollectiveOp& c) {
  const DType dt = wire_dtype(c.payload);
  const double expected = static_cast<double>(stage_.parameter_count()) * static_cast<double>(dtype_bytes(dt));
  if (c.bytes != expected)
    throw InputError(fmt::format("Program rank {} op {} ('{}'): averages {} bytes of weights but the "
                                 "stage's {} parameters are {} bytes in {} (expected one collective "
                                 "over all of them)",
                                 options_.rank, i, ops_[static_cast<std::size_t>(i)].label, c.bytes,
                                 stage_.parameter_count(), expected, dtype_name(dt)));
  auto wire = flat_weights().to(scalar_type(dt)).contiguous();
  const bool library = options_.library_collectives;
  Pending p = on_group_thread(
      c.group, [this, c, wire, library] { return run_collective(cluster_, job_.program, c, wire, library); });
  p.on_done = [this, wire] { set_weights(wire.to(torch::kFloat32)); };
  return p;
}

// The group's thread runs `transfer` (which returns the bytes it sent) after the group's earlier
// collectives; the op ends when it returns.
Interpreter::Pending Interpreter::on_group_thread(GroupId group, std::function<double()> transfer) {
  Pending p;
  p.end_s = std::make_shared<double>(0);
  p.sent = std::make_shared<double>(0);
  p.future = executors_.at(group)->submit(
      [this, transfer = std::move(transfer), end = p.end_s, sent = p.sent] {
        *sent = transfer();
        *end = cluster_.now_s();
      });
  return p;
}

void Interpreter::complete(int i) {
  auto node = pending_.extract(i);
  if (node.empty()) return;
  Pending& p = node.mapped();
  double end_s = 0;
  if (p.future.valid()) {
    if (p.future.wait_for(cluster_.timeout()) != std::future_status::ready)
      throw TimeoutError(fmt::format("rank {} step {} op {} ('{}'): collective not done",
                                     options_.rank, step_, i, ops_[static_cast<std::size_t>(i)].label),
                         options_.timeout_s);
    try {
      p.future.get();
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      fail(i, e.what(), false);
    }
    end_s = *p.end_s;
    p.bytes = *p.sent;
    if (p.on_done) p.on_done();
  } else {
    try {
      for (auto& w : p.works) w->wait(cluster_.timeout());
    } catch (const std::exception& e) {
      const std::string what = e.what();
      fail(i, what, what.find("imeout") != std::string::npos);
    }
    if (p.on_done) p.on_done();
    end_s = cluster_.now_s();  // completion seen when waited on (an upper bound if waited late)
  }
  measurements_.record_op({step_, i, p.start_s, end_s, p.bytes});
}

}  // namespace geotrain
