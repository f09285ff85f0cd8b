#pragma once
// What a worker is given: its Program plus the model and optimizer the Program was built for
// (the Program carries bytes and flops, not the model's shape). One JSON file, written by the
// launcher (or a test), read by every geotrain-worker of the run:
//   {"format": "geotrain-worker-job", "version": 1,
//    "program": {<program_json.hpp>},
//    "model": {"layers": 4, "d_model": 64, "heads": 4, "seq_len": 64, "vocab": 256,
//              "dtype": "fp32", "gradient_dtype": "fp32", "tie_embeddings": true},
//    "training": {"optimizer": "adam", "learning_rate": 0.001},
//    "data": {"successors": 4},
//    "stragglers": {"probability": 0.1, "sleep_s": 0.1, "seed": 7},         (optional)
//    "outer": {"lr": 0.7, "momentum": 0.9, "wire_dtype": "fp32"}}          (optional, DiLoCo)
#include <string>

#include <nlohmann/json.hpp>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

struct WorkerJob {
  Program program;
  ModelSpec model;
  // Tied LM head (the token embedding reused as output projection, as model_spec.hpp counts
  // parameters). A pipeline cannot tie across stages without an embedding sync the Program does
  // not have, so pipelines set it false and the last stage owns its own LM head.
  bool tie_embeddings = true;
  Optimizer optimizer = Optimizer::adam;
  double learning_rate = 1e-3;
  int markov_successors = 4;  // next-token choices per token of the synthetic language
  // Seeded sleeps before forward/backward ops, the simulator's draws (straggler_schedule.hpp).
  StragglerSpec stragglers;
  // Per rank: the compute-time multiplier of its device (devices.overrides slowdown, >= 1): the
  // worker sleeps (slowdown - 1) x each Compute op's own time after it, as a slower card would.
  std::vector<double> slowdown_of_rank;
  // DiLoCo's outer step (Nesterov SGD on the averaged pseudo-gradient) and the pseudo-gradient's
  // dtype on the wire; unused by Programs without an outer_optimizer op.
  double outer_lr = 0.7;
  double outer_momentum = 0.9;
  DType wire_dtype = DType::fp32;
};

nlohmann::json worker_job_to_json(const WorkerJob& job);
WorkerJob worker_job_from_json(const nlohmann::json& j, const std::string& source);
// The job file's text (what write_worker_job writes), e.g. to send it to a remote host as it is.
std::string worker_job_text(const WorkerJob& job);
void write_worker_job(const WorkerJob& job, const std::string& path);
WorkerJob read_worker_job(const std::string& path);

// The job for a scenario's Program: model and training from the scenario; ties embeddings
// unless the Program has more than one pipeline stage; stragglers and DiLoCo's outer step from the
// scenario.
WorkerJob make_worker_job(const Scenario& scenario, Program program);

// The dtype a pseudo-gradient travels in (the Program's outer step); `gradient_dtype` for
// Programs without one.
DType pseudo_gradient_dtype(const Program& program, DType gradient_dtype);

}  // namespace geotrain
