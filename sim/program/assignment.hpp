#pragma once
// Which device runs which (pipeline stage, data-parallel replica): the contract between
// `geotrain schedule` (which writes it) and `simulate`/`emulate` (which read it as placement).
//
// File format (JSON):
//   {"groups":    [[device ids of stage-group 0], ...],        // unordered (DT-FM's partition)
//    "pipelines": [[device of stage 0, stage 1, ...], ...]}    // after scheduling; optional
// groups[g] lists the data-parallel replicas of one stage; with "pipelines" the stage order and
// the replica matching are fixed too. Without it, group g is stage g and replica r of every stage
// is the r-th listed device.
#include <cstdint>
#include <string>
#include <vector>

namespace geotrain {

struct Scenario;

struct Assignment {
  int stages = 0;
  int replicas = 0;
  // device_of[replica][stage]
  std::vector<std::vector<int>> device_of;

  int device(int replica, int stage) const {
    return device_of.at(static_cast<std::size_t>(replica)).at(static_cast<std::size_t>(stage));
  }
  // groups[stage] = devices of that stage (in replica order)
  std::vector<std::vector<int>> stage_groups() const;
};

// DT-FM's identity layout: replica r, stage s on device r * stages + s (a pipeline is a run of
// consecutive devices, as DT-FM's ranks are laid out).
Assignment identity_assignment(int stages, int replicas);
// A uniformly random permutation of devices, from a fixed seed.
Assignment random_assignment(int stages, int replicas, std::uint64_t seed);

// Reads and checks an assignment file against the expected shape and device count.
// Throws InputError ("file: groups[2][5] = 71: no such device (expected 0 to 63)").
Assignment read_assignment(const std::string& path, int stages, int replicas, int devices);
void write_assignment(const std::string& path, const Assignment& a);
std::string assignment_json(const Assignment& a);

}  // namespace geotrain
