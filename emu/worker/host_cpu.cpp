#include "emu/worker/host_cpu.hpp"

#include <time.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace geotrain {

double busy_cpu_s_of(const std::string& cpu_line, double ticks_per_s) {
  std::istringstream in(cpu_line);
  std::string label;
  in >> label;
  if (label != "cpu" || !(ticks_per_s > 0)) return std::nan("");
  std::vector<double> t;
  for (double v; in >> v;) t.push_back(v);
  if (t.size() < 8) return std::nan("");
  // user nice system idle iowait irq softirq steal: idle and iowait are the only idle ones;
  // steal counts as busy, since the hypervisor gave that time to someone else.
  return (t[0] + t[1] + t[2] + t[5] + t[6] + t[7]) / ticks_per_s;
}

double host_busy_cpu_s() {
  std::ifstream in("/proc/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nan("");
  return busy_cpu_s_of(line, static_cast<double>(::sysconf(_SC_CLK_TCK)));
}

double thread_cpu_s() {
  timespec t{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

}  // namespace geotrain
