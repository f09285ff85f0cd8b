#include "emu/net/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cstring>

#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

volatile sig_atomic_t g_signal = 0;
// Prepared before any signal: a handler may not allocate.
std::array<char, 4096> g_self{};
std::array<char, 64> g_cluster{};
constexpr std::array kStopSignals = {SIGINT, SIGTERM};
constexpr std::array kCrashSignals = {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL};

void on_stop(int sig) { g_signal = sig; }

void on_crash(int sig) {
  const char msg[] = "geotrain: crashed; tearing the cluster down\n";
  (void)!write(2, msg, sizeof msg - 1);
  char emu[] = "emu", down[] = "down";
  char* argv[] = {g_self.data(), emu, down, g_cluster.data(), nullptr};
  execv(g_self.data(), argv);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

CleanupOnSignal::CleanupOnSignal(const std::string& cluster) {
  g_signal = 0;
  const ssize_t n = readlink("/proc/self/exe", g_self.data(), g_self.size() - 1);
  g_self[n > 0 ? static_cast<std::size_t>(n) : 0] = '\0';
  std::strncpy(g_cluster.data(), cluster.c_str(), g_cluster.size() - 1);
  struct sigaction stop{}, crash{};
  stop.sa_handler = on_stop;  // no SA_RESTART: blocking calls return EINTR
  crash.sa_handler = on_crash;
  crash.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (int s : kStopSignals) sigaction(s, &stop, nullptr);
  for (int s : kCrashSignals) sigaction(s, &crash, nullptr);
}

CleanupOnSignal::~CleanupOnSignal() {
  for (int s : kStopSignals) signal(s, SIG_DFL);
  for (int s : kCrashSignals) signal(s, SIG_DFL);
}

bool interrupted() { return g_signal != 0; }

void throw_if_interrupted() {
  if (g_signal != 0) throw Error(std::string("interrupted by ") + (g_signal == SIGINT ? "SIGINT" : "SIGTERM"));
}

}  // namespace geotrain::emu
