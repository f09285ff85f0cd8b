#pragma once
// DT-FM's five-point crossover on device -> group labels: the child starts as parent 2, takes
// parent 1's label at five random devices, then is repaired to equal group sizes by scanning
// devices in id order and moving each device of an over-full group to the first group that is
// short. (The original's comment cites Kim & Moon's GA for multiway partitioning.)
#include <random>
#include <vector>

namespace geotrain {

std::vector<int> five_point_crossover(const std::vector<int>& parent1, const std::vector<int>& parent2,
                                      int groups, int group_size, std::mt19937_64& rng,
                                      int points = 5);

}  // namespace geotrain
