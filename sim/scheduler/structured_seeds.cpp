#include "sim/scheduler/structured_seeds.hpp"

#include <algorithm>
#include <numeric>

#include "sim/common/small_math.hpp"

namespace geotrain {

namespace {

// Whether devices a and b can be swapped without changing any cost (exact comparison: regional
// topologies give bit-identical figures to members of one class).
bool interchangeable(const CostModel& m, int a, int b) {
  if (m.pp_pair_s(a, b) != m.pp_pair_s(b, a) || m.dp_pair_s(a, b) != m.dp_pair_s(b, a)) return false;
  for (int k = 0; k < m.devices(); ++k) {
    if (k == a || k == b) continue;
    if (m.pp_pair_s(a, k) != m.pp_pair_s(b, k) || m.pp_pair_s(k, a) != m.pp_pair_s(k, b) ||
        m.dp_pair_s(a, k) != m.dp_pair_s(b, k) || m.dp_pair_s(k, a) != m.dp_pair_s(k, b))
      return false;
  }
  return true;
}

// Members of each class, largest class first (ties: lower class id first).
std::vector<std::vector<int>> classes_by_size(const std::vector<int>& class_of) {
  const int c = class_of.empty() ? 0 : *std::max_element(class_of.begin(), class_of.end()) + 1;
  std::vector<std::vector<int>> members(at(c));
  for (std::size_t d = 0; d < class_of.size(); ++d) members[at(class_of[d])].push_back(static_cast<int>(d));
  std::stable_sort(members.begin(), members.end(),
                   [](const auto& x, const auto& y) { return x.size() > y.size(); });
  return members;
}

std::vector<int> blocks(const std::vector<std::vector<int>>& classes, int group_size, int devices) {
  std::vector<int> labels(at(devices));
  int pos = 0;
  for (const auto& cls : classes)
    for (int d : cls) labels[at(d)] = pos++ / group_size;
  return labels;
}

std::vector<int> fill_then_stripe(const std::vector<std::vector<int>>& classes, int groups,
                                  int group_size, int devices) {
  std::vector<int> labels(at(devices));
  std::vector<int> rest;
  int pure = 0;
  for (const auto& cls : classes) {
    const std::size_t whole = cls.size() / at(group_size) * at(group_size);
    for (std::size_t i = 0; i < whole; ++i) labels[at(cls[i])] = pure + static_cast<int>(i) / group_size;
    pure += static_cast<int>(whole) / group_size;
    rest.insert(rest.end(), cls.begin() + static_cast<std::ptrdiff_t>(whole), cls.end());
  }
  // rest holds exactly (groups - pure) x group_size devices: round-robin keeps groups full.
  const int open = groups - pure;
  for (std::size_t t = 0; t < rest.size(); ++t) labels[at(rest[t])] = pure + static_cast<int>(t) % open;
  return labels;
}

}  // namespace

std::vector<int> interchangeable_classes(const CostModel& model, int max_classes) {
  std::vector<int> class_of(at(model.devices()), -1);
  std::vector<int> representative;
  for (int d = 0; d < model.devices(); ++d) {
    for (std::size_t c = 0; c < representative.size() && class_of[at(d)] < 0; ++c)
      if (interchangeable(model, representative[c], d)) class_of[at(d)] = static_cast<int>(c);
    if (class_of[at(d)] >= 0) continue;
    if (static_cast<int>(representative.size()) == max_classes) return {};
    class_of[at(d)] = static_cast<int>(representative.size());
    representative.push_back(d);
  }
  return class_of;
}

std::vector<std::vector<int>> structured_seeds(const CostModel& model) {
  const auto class_of = interchangeable_classes(model);
  if (class_of.empty()) return {};
  const auto classes = classes_by_size(class_of);
  std::vector<std::vector<int>> seeds{blocks(classes, model.replicas(), model.devices())};
  auto striped = fill_then_stripe(classes, model.stages(), model.replicas(), model.devices());
  if (striped != seeds.front()) seeds.push_back(std::move(striped));
  return seeds;
}

}  // namespace geotrain
