#pragma once
// `geotrain profile`'s request to `geotrain-worker --profile` and the worker's answer (torch-free):
// which Compute ops to time, one representative (rank, op index) per distinct op of the Program,
// keyed as the compute profile is (kind, stage, layer range, sequences), how often, and the
// times the worker measured for each.
//   request: {"format": "geotrain-profile-ops", "version": 1, "repeat": 10, "warmup": 2,
//             "min_seconds": 0 (optional), "ops": [{"rank": 0, "op": 3}, ...]}
//   answer:  {"format": "geotrain-profile-times", "version": 1, "device": "cpu", "torch": "1.13.1",
//             "threads": 1, "ops": [{"rank": 0, "op": 3, "samples_s": [...], "cpu_samples_s": [...]}]}
#include <string>
#include <vector>

#include "sim/program/program.hpp"

namespace geotrain {

struct ProfileOpSite {
  int rank = 0;
  int op = 0;  // index in the rank's op list
};

struct ProfileRequest {
  int repeat = 10;  // timed runs of each op (at least)
  int warmup = 2;   // untimed runs before them
  // More rounds (every op of a stage once per round) until a stage's timed rounds have taken this
  // long: the samples then span the machine's slower and faster spells, not one moment of it.
  double min_seconds = 0;
  std::vector<ProfileOpSite> ops;
};

struct ProfileOpTimes {
  ProfileOpSite site;
  std::vector<double> samples_s;      // wall time, device synchronized
  std::vector<double> cpu_samples_s;  // the thread's CPU time
};

struct ProfileTimes {
  std::string device;  // ComputeDevice::describe(): "cpu" or "cuda:0 (<name>)"
  std::string torch;   // LibTorch version
  int threads = 1;
  std::vector<ProfileOpTimes> ops;
};

// One site per distinct Compute op of the Program (kind, stage, layer range, sequences), in
// first-seen order over ranks, then op indices.
std::vector<ProfileOpSite> distinct_compute_ops(const Program& program);

// Throw InputError naming the file and field when malformed, or a site that is no Compute op
// of the Program.
void write_profile_request(const ProfileRequest& request, const std::string& path);
ProfileRequest read_profile_request(const std::string& path, const Program& program);
void write_profile_times(const ProfileTimes& times, const std::string& path);
ProfileTimes read_profile_times(const std::string& path, const Program& program);

}  // namespace geotrain
