#include "emu/net/linktest/icmp_probe.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "emu/net/netns_util.hpp"
#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

double realtime_s() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);  // the clock SO_TIMESTAMPNS stamps with
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::uint16_t checksum(const void* data, std::size_t len) {
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i + 1 < len; i += 2) sum += static_cast<std::uint32_t>(p[i] << 8 | p[i + 1]);
  if (len % 2 != 0) sum += static_cast<std::uint32_t>(p[len - 1] << 8);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return htons(static_cast<std::uint16_t>(~sum));
}

// Probes of concurrent pairs share a namespace's raw sockets: each run has an id of its own.
std::uint16_t next_id() {
  static std::atomic<std::uint32_t> counter{0};
  return static_cast<std::uint16_t>((static_cast<std::uint32_t>(getpid()) << 4) + counter++);
}

// One reply from fd: its sequence number and kernel receive time; false if not ours.
bool read_reply(int fd, std::uint16_t id, int& seq, double& received_s) {
  char packet[1500], control[256];
  iovec iov{packet, sizeof packet};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = recvmsg(fd, &msg, MSG_DONTWAIT);
  if (n < static_cast<ssize_t>(sizeof(iphdr) + sizeof(icmphdr))) return false;
  const auto* ip = reinterpret_cast<const iphdr*>(packet);
  const std::size_t header = static_cast<std::size_t>(ip->ihl) * 4;
  if (static_cast<std::size_t>(n) < header + sizeof(icmphdr)) return false;
  icmphdr icmp{};
  std::memcpy(&icmp, packet + header, sizeof icmp);
  if (icmp.type != ICMP_ECHOREPLY || ntohs(icmp.un.echo.id) != id) return false;
  received_s = realtime_s();
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
      timespec ts{};
      std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
      received_s = static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
    }
  seq = ntohs(icmp.un.echo.sequence);
  return true;
}

}  // namespace

RttResult measure_icmp_rtt(const std::string& src_netns, const std::string& dst_address, int probes,
                           double spacing_s, double timeout_s) {
  const int fd = [&] {
    NetnsGuard in(src_netns);
    return socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
  }();
  if (fd < 0) throw SystemError("raw ICMP socket in " + src_netns, errno, std::strerror(errno));
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  inet_pton(AF_INET, dst_address.c_str(), &to.sin_addr);
  const std::uint16_t id = next_id();
  std::vector<double> sent(static_cast<std::size_t>(probes), 0), rtt;
  const double start = realtime_s();
  int next = 0;
  // Send one request every spacing_s and collect replies in between, until every reply came or
  // timeout_s after the last request.
  while (static_cast<int>(rtt.size()) < probes) {
    const double now = realtime_s();
    if (next < probes && now >= start + next * spacing_s) {
      icmphdr req{};
      req.type = ICMP_ECHO;
      req.un.echo.id = htons(id);
      req.un.echo.sequence = htons(static_cast<std::uint16_t>(next));
      req.checksum = checksum(&req, sizeof req);
      sent[static_cast<std::size_t>(next)] = realtime_s();
      sendto(fd, &req, sizeof req, 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
      ++next;
      continue;
    }
    const double deadline = next < probes ? start + next * spacing_s : start + (probes - 1) * spacing_s + timeout_s;
    if (now >= deadline && next >= probes) break;
    pollfd p{fd, POLLIN, 0};
    poll(&p, 1, std::max(1, static_cast<int>((deadline - now) * 1e3)));
    int seq = 0;
    double received = 0;
    while (read_reply(fd, id, seq, received))
      if (seq >= 0 && seq < next && sent[static_cast<std::size_t>(seq)] > 0) {
        rtt.push_back(received - sent[static_cast<std::size_t>(seq)]);
        sent[static_cast<std::size_t>(seq)] = 0;  // a duplicate reply counts once
      }
  }
  close(fd);
  RttResult r;
  r.rtt_s = rtt;
  if (rtt.empty()) return r;
  std::sort(rtt.begin(), rtt.end());
  r.min_s = rtt.front();
  r.median_s = rtt.size() % 2 ? rtt[rtt.size() / 2] : (rtt[rtt.size() / 2 - 1] + rtt[rtt.size() / 2]) / 2;
  return r;
}

}  // namespace geotrain::emu
