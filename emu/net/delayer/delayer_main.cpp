// geotrain-delayer: holds the packets of each NFQUEUE number for that queue's delay, then
// accepts them. One process per rank namespace; queue number = source rank, so one queue holds
// one link's packets. Started and stopped by `geotrain emu up/down` (see emu/net/README.md).
//
//   geotrain-delayer --tag gt-x-3 --queue 0:5000000 --queue 1:67000000 [--queue-maxlen 65536]
//                    [--rcvbuf 67108864] [--realtime 10] [--ready-fd 3] [--stats FILE]
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <stdexcept>
#include <string>

#include "emu/net/delayer/delay_queues.hpp"
#include "emu/net/delayer/nfq_socket.hpp"

namespace {

using geotrain::emu::delayer::DelayQueues;
using geotrain::emu::delayer::NfqSocket;

volatile sig_atomic_t g_stop = 0;
void on_signal(int) { g_stop = 1; }

std::int64_t clock_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
std::int64_t now_ns() { return clock_ns(CLOCK_MONOTONIC); }

// How long packets sat in the kernel's queue before the delayer read them (read time - kernel
// receive stamp). With stamps this lag is part of the delay, not added to it; the figures show
// how busy the host was, and `unstamped` counts packets that had no stamp (delay from read time).
struct ReadLag {
  std::uint64_t stamped = 0, unstamped = 0;
  double sum_ns = 0;
  std::int64_t max_ns = 0;
  void add(std::int64_t lag_ns) {
    ++stamped;
    sum_ns += static_cast<double>(lag_ns);
    max_ns = std::max(max_ns, lag_ns);
  }
  double mean_us() const { return stamped == 0 ? 0 : sum_ns / static_cast<double>(stamped) / 1e3; }
};

struct Options {
  std::string tag;
  DelayQueues queues;
  std::vector<int> queue_nums;
  std::uint32_t queue_maxlen = 65536;
  int rcvbuf = 64 << 20;
  int realtime = 10;
  int ready_fd = -1;
  std::string stats_file;
};

long long number(const char* text, const std::string& flag) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0') throw std::invalid_argument(flag + " '" + text + "': expected an integer");
  return v;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::invalid_argument(flag + ": missing value");
    const char* v = argv[++i];
    if (flag == "--tag") o.tag = v;
    else if (flag == "--queue") {
      const char* colon = std::strchr(v, ':');
      if (colon == nullptr) throw std::invalid_argument("--queue '" + std::string(v) + "': expected <queue>:<delay ns>");
      const int q = static_cast<int>(number(std::string(v, colon).c_str(), "--queue"));
      o.queues.add_queue(q, number(colon + 1, "--queue"));
      o.queue_nums.push_back(q);
    } else if (flag == "--queue-maxlen") o.queue_maxlen = static_cast<std::uint32_t>(number(v, flag));
    else if (flag == "--rcvbuf") o.rcvbuf = static_cast<int>(number(v, flag));
    else if (flag == "--realtime") o.realtime = static_cast<int>(number(v, flag));
    else if (flag == "--ready-fd") o.ready_fd = static_cast<int>(number(v, flag));
    else if (flag == "--stats") o.stats_file = v;
    else throw std::invalid_argument("unknown option " + flag);
  }
  if (o.queue_nums.empty()) throw std::invalid_argument("no --queue given");
  return o;
}

// Real-time priority cut release lateness from ~0.1-0.5 ms average (7-17 ms worst) to ~10 us on
// a busy host; without the privilege the delayer still works, less precisely.
void raise_priority(int priority, const std::string& tag) {
  if (priority <= 0) return;
  sched_param p{};
  p.sched_priority = priority;
  if (sched_setscheduler(0, SCHED_FIFO, &p) != 0)
    std::fprintf(stderr, "geotrain-delayer %s: SCHED_FIFO unavailable (%s); normal priority\n",
                 tag.c_str(), std::strerror(errno));
  mlockall(MCL_CURRENT | MCL_FUTURE);
}

void write_stats(const Options& o, const DelayQueues& q, const NfqSocket& in, const NfqSocket& out,
                 const ReadLag& lag) {
  if (o.stats_file.empty()) return;
  const std::string tmp = o.stats_file + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) return;
  std::fprintf(f,
               "{\"tag\": \"%s\", \"released\": %llu, \"held\": %zu, \"max_held\": %zu, "
               "\"lateness_mean_us\": %.3f, \"lateness_max_us\": %.3f, \"enobufs\": %llu, "
               "\"verdict_errors\": %llu, \"read_lag_mean_us\": %.3f, \"read_lag_max_us\": %.3f, "
               "\"unstamped\": %llu}\n",
               o.tag.c_str(), static_cast<unsigned long long>(q.released()), q.held(), q.max_held(),
               q.lateness_mean_ns() / 1e3, static_cast<double>(q.lateness_max_ns()) / 1e3,
               static_cast<unsigned long long>(in.enobufs() + out.enobufs()),
               static_cast<unsigned long long>(in.errors() + out.errors()),
               lag.mean_us(), static_cast<double>(lag.max_ns) / 1e3,
               static_cast<unsigned long long>(lag.unstamped));
  std::fclose(f);
  std::rename(tmp.c_str(), o.stats_file.c_str());
}

// Queues from 32768 up hold this namespace's own ICMP on its way out (emu/net/plan.cpp numbers
// them). Those packets never crossed a receive path and carry no arrival stamp, so they sit on a
// socket of their own that is always read at once; the receivers' queues (stamped) are read in
// batches (below).
constexpr int kEgressQueueBase = 32768;

void run(Options& o) {
  NfqSocket ingress(o.rcvbuf), egress(o.rcvbuf);
  const auto socket_of = [&](int queue) -> NfqSocket& { return queue >= kEgressQueueBase ? egress : ingress; };
  for (int q : o.queue_nums) socket_of(q).bind_queue(q, o.queue_maxlen);
  raise_priority(o.realtime, o.tag);
  // The starter made us die with it until now; from here on the cluster's record and guardian
  // own us (`emu up` exits and leaves its delayers running).
  prctl(PR_SET_PDEATHSIG, 0);
  if (o.ready_fd >= 0) {
    (void)!write(o.ready_fd, "ready\n", 6);
    close(o.ready_fd);
  }
  // SIGTERM/SIGINT are blocked except inside ppoll, so a stop request never slips between the
  // check of g_stop and the wait.
  sigset_t blocked, during_wait;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigprocmask(SIG_BLOCK, &blocked, &during_wait);
  sigdelset(&during_wait, SIGTERM);
  sigdelset(&during_wait, SIGINT);

  ReadLag lag;
  const std::int64_t min_delay = o.queues.min_delay_ns();
  const std::int64_t read_pause = min_delay == DelayQueues::kNever ? 0 : min_delay / 2;  // see the batched reads below
  const std::int64_t trusted_lag = read_pause + 1'000'000'000;
  std::int64_t read_now = 0, real_minus_mono = 0;  // set once per read round
  auto on_packet = [&](int queue, std::uint32_t id, std::int64_t arrival_real) {
    if (!o.queues.has_queue(queue)) return;
    std::int64_t arrival = read_now;
    // A stamp is trusted if it is no older than the longest a packet can wait unread (plus a
    // second) and never later than now: not one of another clock (a kernel that left a sender's
    // departure time on the packet), not across a clock step.
    const std::int64_t stamped = arrival_real - real_minus_mono;
    if (arrival_real > 0 && stamped >= read_now - trusted_lag) {
      arrival = std::min(read_now, stamped);
      lag.add(read_now - arrival);
    } else {
      ++lag.unstamped;
    }
    o.queues.push(queue, id, arrival);
  };
  auto release = [&](int queue, std::uint32_t last_id, std::size_t) {
    socket_of(queue).add_batch_verdict(queue, last_id);
  };
  // Batched reads: once the delayer has read packets, it stops listening for arrivals for half
  // the smallest delay and lets them queue in the kernel; it reads them at its next wake-up (a
  // release or the end of that pause), long before they are due, and the stamps keep the delay
  // exact. With nothing arriving it waits for arrivals as usual, so an idle link costs no
  // wake-ups. On a busy host each wake-up is a context switch: with one per arrival and one per
  // release, the delayers took over half of two cores during a 16-rank all-to-all
  // (docs/emulated-network.md, "Host capacity").
  std::int64_t last_arrivals = std::numeric_limits<std::int64_t>::min() / 2;  // last read that found packets
  std::int64_t next_stats = now_ns();
  while (!g_stop) {
    std::int64_t now = now_ns();
    o.queues.release_due(now, release);
    ingress.flush_verdicts();
    egress.flush_verdicts();
    if (now >= next_stats) {
      write_stats(o, o.queues, ingress, egress, lag);
      next_stats = now + 1'000'000'000;
    }
    std::int64_t wake = std::min(o.queues.next_due_ns(), next_stats);
    const bool listen = now >= last_arrivals + read_pause;
    if (!listen) wake = std::min(wake, last_arrivals + read_pause);
    const std::int64_t wait = std::max<std::int64_t>(0, wake - now);
    timespec timeout{static_cast<time_t>(wait / 1'000'000'000), static_cast<long>(wait % 1'000'000'000)};
    pollfd pfds[2] = {{ingress.fd(), static_cast<short>(listen ? POLLIN : 0), 0}, {egress.fd(), POLLIN, 0}};
    const int ready = ppoll(pfds, 2, &timeout, &during_wait);
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("ppoll: ") + std::strerror(errno));
    if (ready < 0) continue;
    read_now = now_ns();
    real_minus_mono = clock_ns(CLOCK_REALTIME) - read_now;
    // Drain in bounded rounds so due packets are released between rounds.
    for (int round = 0; round < 8 && egress.receive(on_packet) > 0; ++round) {
    }
    std::size_t got = 0;
    for (int round = 0; round < 8; ++round) {
      const std::size_t n = ingress.receive(on_packet);
      if (n == 0) break;
      got += n;
    }
    if (got > 0) last_arrivals = read_now;
  }
  write_stats(o, o.queues, ingress, egress, lag);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = parse(argc, argv);
    struct sigaction sa{};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGINT, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    run(o);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "geotrain-delayer: %s\n", e.what());
    return 1;
  }
}
