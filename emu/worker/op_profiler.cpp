// geotrain-worker --profile: times the Compute ops `geotrain profile` asks for, in this one
// process, without a cluster. Each op runs as the interpreter runs it (interpreter.cpp): the same
// GptStage and StageState on the same ComputeDevice, the first stage's batch read from the
// synthetic language inside the op's time, the device synchronized before the op ends; a later
// stage's input activation or output gradient is a random tensor of the shape a Recv would bring
// ([sequences, seq_len, d_model]), made before the clock starts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <torch/version.h>

#include "emu/worker/compressed_exchange.hpp"
#include "emu/worker/compute_device.hpp"
#include "emu/worker/cuda/cuda_runtime.hpp"
#include "emu/worker/fragment_outer_state.hpp"
#include "emu/worker/markov_source.hpp"
#include "emu/worker/profile_ops.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/host_cpu.hpp"
#include "emu/worker/stage_memory.hpp"
#include "emu/worker/stage_state.hpp"
#include "emu/worker/worker.hpp"
#include "sim/common/error.hpp"
#include "sim/program/compression.hpp"

namespace geotrain {

namespace {

double profiler_wall_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// One stage (a representative rank's) and what timing its ops needs.
class StageProfiler {
 public:
  StageProfiler(const WorkerJob& job, const WorkerOptions& o, const ComputeDevice& device, int rank)
      : job_(job),
        device_(device),
        ops_(job.program.ranks.at(static_cast<std::size_t>(rank))),
        plan_(make_rank_plan(job.program, rank, job.model.layers)),
        state_(job, plan_, rank, o.seed, device.compute()),
        source_(job.model.vocab, job.markov_successors, o.seed),
        pseudo_gradient_(ops_.size(), false) {
    // DiLoCo's pseudo-gradient op: the first op of a pseudo-gradient phase (as the interpreter).
    // Streaming DiLoCo's fragments keep their own state and ops (as the interpreter).
    fragments_ = FragmentOuterState::for_program(job.program, rank, state_);
    const auto phase = pseudo_gradient_phase(ops_);
    for (std::size_t i = 0; i < ops_.size(); ++i)
      pseudo_gradient_[i] = !fragments_ && phase[i] && (i == 0 || !phase[i - 1]);
  }

  const RankPlan& plan() const { return plan_; }

  // The stage's ops in rounds, each op once per round: `warmup` untimed rounds, then at least
  // `repeat` timed ones, more until they have taken `min_seconds`. Interleaved rather than one op
  // after the other, so every op's samples come from the same spells of the machine (a shared VM
  // ran the same op 1.6x slower for minutes at a time, 2026-11-28).
  std::vector<ProfileOpTimes> time(const std::vector<ProfileOpSite>& sites, int warmup, int repeat,
                                   double min_seconds) {
    std::vector<ProfileOpTimes> times;
    for (const auto& site : sites) times.push_back({site, {}, {}});
    const auto round = [&](bool timed) {
      for (std::size_t k = 0; k < sites.size(); ++k) {
        const auto& c = *ops_.at(static_cast<std::size_t>(sites[k].op)).as<ComputeOp>();
        const auto [wall, cpu] = run_once(sites[k].op, c);
        if (!timed) continue;
        times[k].samples_s.push_back(wall);
        times[k].cpu_samples_s.push_back(cpu);
      }
    };
    for (int i = 0; i < warmup; ++i) round(false);
    const double start = profiler_wall_s();
    for (int i = 0; i < repeat || profiler_wall_s() - start < min_seconds; ++i) round(true);
    return times;
  }

 private:
  // Interpreter::batch's tokens and next-token targets for `sequences` sequences, on the device.
  std::pair<torch::Tensor, torch::Tensor> batch(int sequences) {
    const int S = job_.model.seq_len;
    auto tokens = torch::empty({sequences, S}, torch::kLong);
    auto targets = torch::empty({sequences, S}, torch::kLong);
    auto* tk = tokens.data_ptr<std::int64_t>();
    auto* tg = targets.data_ptr<std::int64_t>();
    for (int j = 0; j < sequences; ++j) {
      const auto seq = source_.sequence(next_sequence_++, S + 1);
      std::copy(seq.begin(), seq.end() - 1, tk + static_cast<std::ptrdiff_t>(j) * S);
      std::copy(seq.begin() + 1, seq.end(), tg + static_cast<std::ptrdiff_t>(j) * S);
    }
    return {tokens.to(device_.compute()), targets.to(device_.compute())};
  }

  torch::Tensor activation(int sequences) const {
    return torch::randn({sequences, job_.model.seq_len, job_.model.d_model},
                        torch::TensorOptions().device(device_.compute()));
  }

  // The op's input as the interpreter has it: tokens (layer 0) inside the op, else a received
  // activation, made now.
  struct Inputs {
    torch::Tensor input, targets;
  };
  Inputs inputs(const ComputeOp& c, int sequences, bool inside_op) {
    Inputs in;
    const bool last = c.layer_end == job_.model.layers;
    if (c.layer_begin == 0) {
      if (inside_op) std::tie(in.input, in.targets) = batch(sequences);
    } else {
      if (!inside_op) in.input = activation(sequences);
      if (inside_op && last) in.targets = batch(sequences).second;
    }
    return in;
  }

  std::pair<double, double> run_once(int index, const ComputeOp& c) {
    const int L = job_.model.layers;
    const int sequences = c.micro_batch >= 0 && c.sequences > 0 ? plan_.micro_batch(c.micro_batch).sequences : 0;
    auto& stage = state_.model();
    Inputs before;
    torch::Tensor grad;
    if (c.kind == ComputeKind::forward) {
      before = inputs(c, sequences, false);
    } else if (c.kind == ComputeKind::backward) {
      // The forward it needs, untimed, and the output gradient a Recv would bring.
      auto in = inputs(c, sequences, false);
      const auto also = inputs(c, sequences, true);
      stage.forward(0, c.layer_begin, c.layer_end, c.layer_begin == 0 ? also.input : in.input, also.targets);
      if (c.layer_end < L) grad = activation(sequences);
    } else if (fragments_ && fragments_->runs(index)) {
      fragments_->prepare(index);  // an outer step's or merge's buffer, untimed
    } else if (c.kind == ComputeKind::outer_optimizer || pseudo_gradient_.at(static_cast<std::size_t>(index))) {
      if (!round_started_) state_.begin_round();
      round_started_ = true;
    }
    const auto role = codec_role(ops_, static_cast<std::size_t>(index));
    const int codec_of = role == CodecRole::none ? -1 : static_cast<int>(codec_collective(ops_, static_cast<std::size_t>(index)));
    torch::Tensor codec_in, residual;
    if (role == CodecRole::encode) codec_in = codec_buffer(collective_at(codec_of));
    if (role == CodecRole::decode) {  // an encoded buffer, as the exchange leaves it, untimed
      const auto& col = collective_at(codec_of);
      exchange_.encode(col, group_size(col), 0, codec_buffer(col), residual);
      exchange_.stand_in_for_exchange(col, group_size(col));
    }
    device_.synchronize();
    const double cpu0 = thread_cpu_s();
    const double wall0 = profiler_wall_s();
    if (c.kind == ComputeKind::forward) {
      auto in = inputs(c, sequences, true);
      auto out = stage.forward(0, c.layer_begin, c.layer_end, c.layer_begin == 0 ? in.input : before.input,
                               in.targets);
      if (c.layer_end == L) (void)out.item<double>();
    } else if (c.kind == ComputeKind::backward) {
      const double weight = static_cast<double>(sequences) / plan_.replica_sequences;
      stage.backward(0, c.layer_begin, c.layer_end, grad, weight);
    } else if (c.kind == ComputeKind::optimizer) {
      state_.optimizer_step();
    } else if (fragments_ && fragments_->runs(index)) {
      fragments_->run(index);
    } else if (c.kind == ComputeKind::outer_optimizer) {
      state_.outer_step();
    } else if (pseudo_gradient_.at(static_cast<std::size_t>(index))) {
      state_.pseudo_gradient();
    } else if (role == CodecRole::encode) {  // a compressed exchange's codec ops (compressed_exchange.hpp)
      const auto& col = collective_at(codec_of);
      exchange_.encode(col, group_size(col), 0, codec_in, residual);
    } else if (role == CodecRole::decode) {
      (void)exchange_.decode(collective_at(codec_of), group_size(collective_at(codec_of)));
    }  // else `other` with nothing to compute in the worker (interpreter.cpp)
    device_.synchronize();
    const double wall = profiler_wall_s() - wall0;
    const double cpu = thread_cpu_s() - cpu0;
    stage.discard(0);
    return {wall, cpu};
  }

  const CollectiveOp& collective_at(int index) const {
    return *ops_.at(static_cast<std::size_t>(index)).as<CollectiveOp>();
  }
  int group_size(const CollectiveOp& c) const {
    return static_cast<int>(job_.program.group(c.group).ranks.size());
  }
  // What the interpreter would hand the exchange: the weights, or a gradient of the stage's size
  // and place (random: an all-zero one would skip most of int8's and fp4's work).
  torch::Tensor codec_buffer(const CollectiveOp& c) {
    if (c.payload == Payload::weights) return state_.flat_weights();
    return torch::randn_like(state_.flat_grad().narrow(0, 0, static_cast<std::int64_t>(compressed_elements(c))));
  }

  const WorkerJob& job_;
  const ComputeDevice& device_;
  const std::vector<Op>& ops_;
  RankPlan plan_;
  StageState state_;
  MarkovSource source_;
  std::vector<bool> pseudo_gradient_;
  std::uint64_t next_sequence_ = 0;
  bool round_started_ = false;
  CompressedExchange exchange_;
  std::unique_ptr<FragmentOuterState> fragments_;  // Streaming DiLoCo (OuterStep::fragmented)
};

// A CUDA stage must fit in the GPU's free memory (the CPU's is checked by geotrain profile).
void check_profile_memory(const WorkerJob& job, const ComputeDevice& device,
                          const std::map<int, std::vector<ProfileOpSite>>& by_rank) {
  if (!device.cuda()) return;
  const auto memory = cuda_rt::memory(device.compute().index());
  for (const auto& [rank, sites] : by_rank) {
    const auto plan = make_rank_plan(job.program, rank, job.model.layers);
    if (const auto problem = stage_fit_problem(estimate_stage_memory(job, plan),
                                               static_cast<double>(memory.free_bytes), 1, device.describe());
        !problem.empty())
      throw InputError(fmt::format("stage {} (layers [{}, {})): {}", plan.stage, plan.layer_begin, plan.layer_end,
                                   problem));
  }
}

}  // namespace

void run_op_profile(const WorkerJob& job, const std::string& request_path, const WorkerOptions& options) {
  const ProfileRequest request = read_profile_request(request_path, job.program);
  const ComputeDevice device(options.device, options.cuda_device, Transport::gloo, 0);
  std::map<int, std::vector<ProfileOpSite>> by_rank;
  for (const auto& site : request.ops) by_rank[site.rank].push_back(site);
  check_profile_memory(job, device, by_rank);
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  ProfileTimes times{device.describe(), TORCH_VERSION, options.threads, {}};
  fmt::print("profiling {} Compute op(s) of {} stage(s) on {}, {} torch thread(s), {} warm-up + {} timed round(s) "
             "(at least {:g} s) each, the ops of a stage interleaved\n",
             request.ops.size(), by_rank.size(), times.device, options.threads, request.warmup, request.repeat,
             request.min_seconds);
  std::fflush(stdout);
  std::size_t done = 0;
  for (const auto& [rank, sites] : by_rank) {
    const double start = profiler_wall_s();
    StageProfiler stage(job, options, device, rank);
    const auto timed = stage.time(sites, request.warmup, request.repeat, request.min_seconds);
    times.ops.insert(times.ops.end(), timed.begin(), timed.end());
    done += sites.size();
    const auto& p = stage.plan();
    fmt::print("stage {} (rank {}, layers [{}, {})): {} op(s) x {} + {} runs in {:.2f} s  ({}/{} ops)\n", p.stage,
               rank, p.layer_begin, p.layer_end, sites.size(), request.warmup, timed.front().samples_s.size(),
               profiler_wall_s() - start, done, request.ops.size());
    std::fflush(stdout);
  }
  write_profile_times(times, options.out_dir + "/profile_times.json");
}

}  // namespace geotrain
