#pragma once
// One netlink socket bound to every NFQUEUE number of a namespace. It asks the kernel for
// metadata only (COPY_META: no payload copies) and for whole GSO packets (NFQA_CFG_F_GSO: the
// trial measured 45x fewer packets and a 4x higher ceiling than segmenting), drains with
// recvmmsg, and sends all verdicts of a release round as one datagram of batch verdicts.
//
// It also turns on the kernel's receive time stamps (a socket with SO_TIMESTAMPNS does this for
// the whole host) so every queued packet carries the time it reached the namespace
// (NFQA_TIMESTAMP). The delayer then counts the delay from that arrival, not from when it got
// round to reading the packet, and need not wake for every arrival (delayer_main.cpp).
#include <cstdint>
#include <string>
#include <vector>

#include <sys/socket.h>

struct mnl_socket;

namespace geotrain::emu::delayer {

class NfqSocket {
 public:
  explicit NfqSocket(int rcvbuf_bytes);
  ~NfqSocket();
  NfqSocket(const NfqSocket&) = delete;
  NfqSocket& operator=(const NfqSocket&) = delete;

  // Binds queue_num to this socket and configures it; waits for the kernel's acknowledgement.
  void bind_queue(int queue_num, std::uint32_t queue_maxlen);
  int fd() const;

  // Reads what is waiting (never blocks): calls on_packet(queue_num, packet_id, arrival) per
  // packet, arrival = the kernel's receive stamp in CLOCK_REALTIME ns, 0 when it has none.
  // Returns the number of datagrams read, 0 when nothing was waiting.
  template <typename OnPacket>
  std::size_t receive(OnPacket&& on_packet);

  // Accept every packet of queue_num up to last_id; sent by flush_verdicts().
  void add_batch_verdict(int queue_num, std::uint32_t last_id);
  void flush_verdicts();

  std::uint64_t enobufs() const { return enobufs_; }
  std::uint64_t errors() const { return errors_; }

 private:
  // Parses one datagram; returns false for non-packet messages.
  bool parse_packet(const char* data, std::size_t len, int& queue_num, std::uint32_t& id,
                    std::int64_t& arrival_real_ns);
  std::size_t receive_batch();

  static constexpr std::size_t kSlots = 64;
  static constexpr std::size_t kSlotBytes = 4096;
  mnl_socket* nl_ = nullptr;
  unsigned port_id_ = 0;
  std::uint32_t seq_ = 1;
  std::vector<char> recv_buffers_ = std::vector<char>(kSlots * kSlotBytes);
  std::vector<mmsghdr> messages_ = std::vector<mmsghdr>(kSlots);
  std::vector<iovec> iovecs_ = std::vector<iovec>(kSlots);
  std::vector<char> verdicts_;
  std::uint64_t enobufs_ = 0, errors_ = 0;
  int stamp_fd_ = -1;  // keeps the host's receive time stamps on while the delayer runs
};

template <typename OnPacket>
std::size_t NfqSocket::receive(OnPacket&& on_packet) {
  const std::size_t n = receive_batch();
  for (std::size_t i = 0; i < n; ++i) {
    int queue = 0;
    std::uint32_t id = 0;
    std::int64_t arrival = 0;
    const char* data = recv_buffers_.data() + i * kSlotBytes;
    if (parse_packet(data, messages_[i].msg_len, queue, id, arrival)) on_packet(queue, id, arrival);
  }
  return n;
}

}  // namespace geotrain::emu::delayer
