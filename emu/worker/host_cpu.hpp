#pragma once
// The host's busy CPU time, for the host-cores model (docs/simulator-models.md, "Host cores"):
// every worker notes it at the end of each step (iterations.csv: host_busy_s), so the launcher
// can tell how much CPU the run used outside Compute ops (Gloo's threads, the delayer, the
// kernel's shaping) while all ranks shared one machine. /proc/stat is not namespaced: a worker
// in its network namespace still sees the whole machine.
#include <string>

namespace geotrain {

// Seconds of CPU time all CPUs spent busy since boot (user, nice, system, irq, softirq and steal
// from /proc/stat's first line); NaN when it cannot be read.
double host_busy_cpu_s();

// The same from the text of /proc/stat's first line ("cpu  user nice system idle iowait irq
// softirq steal ..."), in ticks of `ticks_per_s`; NaN when the line does not parse.
double busy_cpu_s_of(const std::string& cpu_line, double ticks_per_s);

// CPU seconds the calling thread has used. The worker runs torch on one thread
// (emulation.torch_threads: 1 is what compare's host-cores model assumes), so a Compute op's
// share is its uncontended duration (interpreter.cpp, op_profiler.cpp).
double thread_cpu_s();

}  // namespace geotrain
