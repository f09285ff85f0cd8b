#include "emu/net/linktest/link_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <exception>
#include <thread>

#include "emu/net/netns_util.hpp"
#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { if (fd_ >= 0) close(fd_); }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// The RTT probe measures the network, not this host's scheduler: on a busy 2-core machine a
// normal-priority thread waits milliseconds to run, which would read as link delay. The probe
// threads run SCHED_FIFO below the delayers (priority 10) while they measure.
class RealtimeThread {
 public:
  RealtimeThread() {
    pthread_getschedparam(pthread_self(), &policy_, &param_);
    sched_param p{};
    p.sched_priority = 5;
    raised_ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &p) == 0;
  }
  ~RealtimeThread() {
    if (raised_) pthread_setschedparam(pthread_self(), policy_, &param_);
  }
  RealtimeThread(const RealtimeThread&) = delete;
  RealtimeThread& operator=(const RealtimeThread&) = delete;

 private:
  int policy_ = SCHED_OTHER;
  sched_param param_{};
  bool raised_ = false;
};

[[noreturn]] void fail(const std::string& what, const Endpoint& dst) {
  const int e = errno;
  throw SystemError(what + " " + dst.address + ":" + std::to_string(dst.port) + " (" + dst.netns + ")",
                    e, std::strerror(e));
}

void set_timeout(int fd, double timeout_s) {
  timeval tv{static_cast<time_t>(timeout_s), static_cast<suseconds_t>(std::fmod(timeout_s, 1.0) * 1e6)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

sockaddr_in address_of(const Endpoint& e) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(e.port));
  inet_pton(AF_INET, e.address.c_str(), &a.sin_addr);
  return a;
}

Fd listen_in(const Endpoint& dst) {
  NetnsGuard in(dst.netns);
  Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  const int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const sockaddr_in a = address_of(dst);
  if (bind(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail("bind", dst);
  if (listen(fd.get(), 4) != 0) fail("listen", dst);
  return fd;
}

Fd connect_from(const std::string& src_netns, const Endpoint& dst, double timeout_s, bool cubic,
                std::string* congestion) {
  Fd fd = [&] {
    NetnsGuard in(src_netns);
    return Fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  }();
  const int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  // cubic reached the payload ceiling on every trial link; bbr (the default here) loses up to
  // 10% in its ProbeRTT phases. Per-socket cubic needs root inside a child namespace.
  if (cubic) setsockopt(fd.get(), IPPROTO_TCP, TCP_CONGESTION, "cubic", 5);
  if (congestion != nullptr) {
    char name[16] = {};
    socklen_t len = sizeof name;
    getsockopt(fd.get(), IPPROTO_TCP, TCP_CONGESTION, name, &len);
    *congestion = name;
  }
  set_timeout(fd.get(), timeout_s);
  const sockaddr_in a = address_of(dst);
  if (connect(fd.get(), reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) fail("connect to", dst);
  return fd;
}

bool read_full(int fd, char* buf, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = read(fd, buf + got, n - got);
    if (r <= 0) return false;
    got += static_cast<std::size_t>(r);
  }
  return true;
}

// Runs server(listener) on a thread while client() runs here; rethrows the first failure.
template <typename Server, typename Client>
void run_pair(Fd& listener, Server&& server, Client&& client) {
  std::exception_ptr server_error;
  std::thread t([&] {
    try {
      server(listener);
    } catch (...) {
      server_error = std::current_exception();
    }
  });
  std::exception_ptr client_error;
  try {
    client();
  } catch (...) {
    client_error = std::current_exception();
    shutdown(listener.get(), SHUT_RDWR);  // unblocks an accept() that will never complete
  }
  t.join();
  if (client_error) std::rethrow_exception(client_error);
  if (server_error) std::rethrow_exception(server_error);
}

Fd accept_one(Fd& listener, double timeout_s, const Endpoint& dst) {
  set_timeout(listener.get(), timeout_s);
  Fd conn(accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC));
  if (conn.get() < 0) fail("accept on", dst);
  set_timeout(conn.get(), timeout_s);
  return conn;
}

}  // namespace

RttResult measure_rtt(const std::string& src_netns, const Endpoint& dst, int probes, double timeout_s) {
  Fd listener = listen_in(dst);
  RttResult result;
  constexpr std::size_t kMessage = 64;
  run_pair(
      listener,
      [&](Fd& l) {
        RealtimeThread realtime;
        Fd conn = accept_one(l, timeout_s, dst);
        const int one = 1;
        setsockopt(conn.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char buf[kMessage];
        while (read_full(conn.get(), buf, kMessage))
          if (write(conn.get(), buf, kMessage) != static_cast<ssize_t>(kMessage)) break;
      },
      [&] {
        RealtimeThread realtime;
        Fd conn = connect_from(src_netns, dst, timeout_s, false, nullptr);
        char buf[kMessage] = {};
        for (int k = 0; k <= probes; ++k) {
          const auto t0 = Clock::now();
          if (write(conn.get(), buf, kMessage) != static_cast<ssize_t>(kMessage) ||
              !read_full(conn.get(), buf, kMessage))
            fail("echo probe to", dst);
          if (k > 0) result.rtt_s.push_back(seconds_since(t0));  // k = 0 warms the path up
        }
      });
  std::vector<double> sorted = result.rtt_s;
  std::sort(sorted.begin(), sorted.end());
  result.median_s = sorted.empty() ? 0 : sorted[sorted.size() / 2];
  result.min_s = sorted.empty() ? 0 : sorted.front();
  return result;
}

BulkResult measure_bulk(const std::string& src_netns, const Endpoint& dst, double duration_s,
                        double window_s, double timeout_s) {
  Fd listener = listen_in(dst);
  BulkResult result;
  std::vector<std::pair<double, double>> samples;  // (seconds since first byte, bytes so far)
  run_pair(
      listener,
      [&](Fd& l) {
        Fd conn = accept_one(l, timeout_s, dst);
        std::vector<char> buf(1 << 20);
        double total = 0;
        Clock::time_point first{};
        for (;;) {
          const ssize_t n = read(conn.get(), buf.data(), buf.size());
          if (n < 0 && errno == ECONNRESET) break;  // the sender's abort ends the transfer
          if (n < 0) fail("bulk receive from", dst);
          if (n == 0) break;
          if (total == 0) first = Clock::now();
          total += static_cast<double>(n);
          samples.emplace_back(seconds_since(first), total);
        }
        result.bytes = total;
      },
      [&] {
        Fd conn = connect_from(src_netns, dst, timeout_s, true, &result.congestion_control);
        std::vector<char> buf(1 << 20, 'g');
        const auto t0 = Clock::now();
        while (seconds_since(t0) < duration_s)
          if (write(conn.get(), buf.data(), buf.size()) < 0) fail("bulk send to", dst);
        // Abort (RST) instead of draining a socket buffer of up to tcp_wmem max: the window is
        // over, and a drain would take seconds on the long links.
        const linger abort_now{1, 0};
        setsockopt(conn.get(), SOL_SOCKET, SO_LINGER, &abort_now, sizeof abort_now);
      });
  // The receiver's view of the last window_s of sending: [duration - window, duration] after
  // the first byte arrived.
  const double from = duration_s - window_s, to = duration_s;
  const auto start = std::lower_bound(samples.begin(), samples.end(), std::make_pair(from, 0.0));
  auto end = std::upper_bound(samples.begin(), samples.end(), std::make_pair(to, 1e300));
  if (start == samples.end() || end == samples.begin() || std::prev(end) <= start)
    throw SystemError("bulk transfer to " + dst.address + " (" + dst.netns + ")", 1,
                      "too few bytes arrived to measure a rate");
  --end;
  result.window_s = end->first - start->first;
  result.goodput_Bps = (end->second - start->second) / result.window_s;
  return result;
}

double ramp_time_s(double bandwidth_Bps, double rtt_s) {
  const double segments = std::max(2.0, 2 * bandwidth_Bps * rtt_s / (10 * 1448.0));
  return rtt_s * (std::log2(segments) + 3) + 0.3;
}

}  // namespace geotrain::emu
