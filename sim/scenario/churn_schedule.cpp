#include "sim/scenario/churn_schedule.hpp"

#include <algorithm>

namespace geotrain {

ChurnSchedule::ChurnSchedule(const ChurnSpec& spec, int workers)
    : workers_(workers), absences_(spec.absences), epochs_{0} {
  for (const auto& a : absences_) {
    epochs_.push_back(a.leave);
    if (a.join >= 0) epochs_.push_back(a.join);
  }
  std::sort(epochs_.begin(), epochs_.end());
  epochs_.erase(std::unique(epochs_.begin(), epochs_.end()), epochs_.end());
}

bool ChurnSchedule::present(int worker, int round) const {
  return std::none_of(absences_.begin(), absences_.end(), [&](const Absence& a) {
    return a.worker == worker && round >= a.leave && (a.join < 0 || round < a.join);
  });
}

std::vector<int> ChurnSchedule::present_in(int round) const {
  std::vector<int> out;
  for (int w = 0; w < workers_; ++w)
    if (present(w, round)) out.push_back(w);
  return out;
}

std::vector<std::pair<int, int>> ChurnSchedule::present_ranges(int worker) const {
  std::vector<std::pair<int, int>> out;
  for (std::size_t e = 0; e < epochs_.size(); ++e) {
    if (!present(worker, epochs_[e])) continue;
    const int end = e + 1 < epochs_.size() ? epochs_[e + 1] : -1;
    if (!out.empty() && out.back().second == epochs_[e])
      out.back().second = end;  // the previous epoch's range goes on
    else
      out.emplace_back(epochs_[e], end);
  }
  return out;
}

std::vector<int> ChurnSchedule::joining(int round) const {
  std::vector<int> out;
  if (round <= 0) return out;
  for (int w = 0; w < workers_; ++w)
    if (present(w, round) && !present(w, round - 1)) out.push_back(w);
  return out;
}

int ChurnSchedule::state_source(int round) const {
  for (int w = 0; w < workers_; ++w)
    if (present(w, round) && present(w, round - 1)) return w;
  return -1;
}

}  // namespace geotrain
