#pragma once
// Hand-built Programs for the worker tests, following the conventions of
// emu/worker/rank_plan.hpp (what the strategy builders of sim/strategies produce as well).
#include <vector>

#include "emu/worker/worker_job.hpp"

namespace geotrain::test {

// gpt-tiny in fp32 (exact equivalence checks need fp32 on the wire too).
ModelSpec tiny_model();

// Gradient elements of a stage owning layers [lb, le) (embeddings on the first stage; final
// norm, plus an LM head when untied, on the last).
double stage_parameters(const ModelSpec& m, int lb, int le, bool tied);

struct DdpOptions {
  int ranks = 2;
  int sequences_per_rank = 4;
  int micro_batches = 1;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  bool parameter_server = false;  // gather to rank 0 + scatter back (COS 598D task 2a)
  bool bucketed = false;  // two buckets all-reduced while backward goes on (task 3)
};
WorkerJob ddp_job(const ModelSpec& m, const DdpOptions& o);

// GPipe: `stages` x `replicas`, rank = replica * stages + stage, then a ring all-reduce per
// stage among its replicas. Untied LM head.
WorkerJob gpipe_job(const ModelSpec& m, int stages, int replicas, int micro_batches,
                    int sequences_per_micro_batch);

}  // namespace geotrain::test
