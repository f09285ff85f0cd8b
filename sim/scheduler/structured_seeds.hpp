#pragma once
// Bandwidth-aware starting partitions for the evolutionary search, built from the network's
// structure rather than drawn at random.
//
// Devices are first grouped into equivalence classes: i ~ j when they are interchangeable in the
// cost model (same pipeline and data-parallel cost to every third device, both ways, and the
// same cost between them in both directions) - a spot instance, a region, a city, or "every
// standalone GPU". Two partitions are then dealt from the classes (largest first):
//  - `blocks`: classes laid end to end and cut into consecutive groups (cheap data parallelism:
//    a group's members share fast links);
//  - `fill_then_stripe`: every class first fills as many whole groups as it can (pure groups,
//    like blocks); the remaining devices are dealt round-robin, class by class, over the groups
//    still open, so those groups get the same class mix. Groups with the same mix have a
//    perfect matching over fast links only, so consecutive pipeline stages stay inside the
//    fast classes (DT-FM case 2: the standalone GPUs fill four groups, each of the other four
//    gets one GPU of every spot instance).
// Random partitions almost never have either shape when fast classes are small, and the
// cyclic local search moves one device at a time, which cannot cross the plateau between them.
//
// Classes are found by comparing each device with one representative per class: O(N^2 x C).
// Without exploitable structure (more than `max_classes` classes, e.g. an irregular matrix)
// there are no seeds.
#include <vector>

#include "sim/scheduler/cost_model.hpp"

namespace geotrain {

// Class id per device (classes numbered by first device), or empty beyond max_classes.
std::vector<int> interchangeable_classes(const CostModel& model, int max_classes = 64);

// Device -> group label vectors (group size = model.replicas()), at most two, no duplicates.
std::vector<std::vector<int>> structured_seeds(const CostModel& model);

}  // namespace geotrain
