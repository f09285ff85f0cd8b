#include "emu/net/delayer/nfq_socket.hpp"

#include <arpa/inet.h>
#include <endian.h>
#include <unistd.h>
#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace geotrain::emu::delayer {

namespace {

std::runtime_error sys_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

}  // namespace

NfqSocket::NfqSocket(int rcvbuf_bytes) {
  nl_ = mnl_socket_open(NETLINK_NETFILTER);
  if (nl_ == nullptr) throw sys_error("mnl_socket_open(NETLINK_NETFILTER)");
  if (mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0) throw sys_error("mnl_socket_bind");
  port_id_ = mnl_socket_get_portid(nl_);
  // rmem_max is read-only inside a child namespace; FORCE needs CAP_NET_ADMIN, which we have.
  if (setsockopt(fd(), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf_bytes, sizeof rcvbuf_bytes) < 0)
    throw sys_error("setsockopt(SO_RCVBUFFORCE)");
  for (std::size_t i = 0; i < kSlots; ++i) {
    iovecs_[i] = {recv_buffers_.data() + i * kSlotBytes, kSlotBytes};
    messages_[i].msg_hdr = {};
    messages_[i].msg_hdr.msg_iov = &iovecs_[i];
    messages_[i].msg_hdr.msg_iovlen = 1;
  }
  // Receive stamps are a host-wide switch (net_enable_timestamp) that any socket asking for them
  // turns on; without it NFQA_TIMESTAMP is absent and the delayer falls back to its read time.
  stamp_fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  if (stamp_fd_ >= 0) (void)setsockopt(stamp_fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

NfqSocket::~NfqSocket() {
  if (nl_ != nullptr) mnl_socket_close(nl_);
  if (stamp_fd_ >= 0) close(stamp_fd_);
}

int NfqSocket::fd() const { return mnl_socket_get_fd(nl_); }

void NfqSocket::bind_queue(int queue_num, std::uint32_t queue_maxlen) {
  std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
  auto send_and_ack = [&](nlmsghdr* nlh, const char* what) {
    nlh->nlmsg_flags |= NLM_F_ACK;
    nlh->nlmsg_seq = seq_++;
    if (mnl_socket_sendto(nl_, nlh, nlh->nlmsg_len) < 0) throw sys_error(what);
    const ssize_t n = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
    if (n < 0) throw sys_error(what);
    if (mnl_cb_run(buf.data(), static_cast<size_t>(n), nlh->nlmsg_seq, port_id_, nullptr, nullptr) < 0)
      throw sys_error(std::string(what) + " for queue " + std::to_string(queue_num));
  };
  nlmsghdr* nlh = nfq_nlmsg_put(buf.data(), NFQNL_MSG_CONFIG, static_cast<std::uint32_t>(queue_num));
  nfq_nlmsg_cfg_put_cmd(nlh, AF_INET, NFQNL_CFG_CMD_BIND);
  send_and_ack(nlh, "NFQUEUE bind");

  std::vector<char> cfg(MNL_SOCKET_BUFFER_SIZE);
  nlh = nfq_nlmsg_put(cfg.data(), NFQNL_MSG_CONFIG, static_cast<std::uint32_t>(queue_num));
  nfq_nlmsg_cfg_put_params(nlh, NFQNL_COPY_META, 0);
  nfq_nlmsg_cfg_put_qmaxlen(nlh, queue_maxlen);
  mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_GSO));
  mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_GSO));
  send_and_ack(nlh, "NFQUEUE configure");
}

std::size_t NfqSocket::receive_batch() {
  for (std::size_t i = 0; i < kSlots; ++i) messages_[i].msg_len = 0;
  const int n = recvmmsg(fd(), messages_.data(), kSlots, MSG_DONTWAIT, nullptr);
  if (n >= 0) return static_cast<std::size_t>(n);
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return 0;
  // The socket buffer overflowed: the kernel dropped those packets (TCP retransmits them).
  if (errno == ENOBUFS) {
    ++enobufs_;
    return 0;
  }
  throw sys_error("recvmmsg");
}

bool NfqSocket::parse_packet(const char* data, std::size_t len, int& queue_num, std::uint32_t& id,
                             std::int64_t& arrival_real_ns) {
  auto* nlh = reinterpret_cast<const nlmsghdr*>(data);
  int remaining = static_cast<int>(len);
  if (!mnl_nlmsg_ok(nlh, remaining)) return false;
  if (nlh->nlmsg_type == NLMSG_ERROR) {
    // An error for one of our verdicts (e.g. a packet id the kernel no longer holds).
    auto* err = static_cast<const nlmsgerr*>(mnl_nlmsg_get_payload(nlh));
    if (err->error != 0) ++errors_;
    return false;
  }
  if ((nlh->nlmsg_type & 0xff) != NFQNL_MSG_PACKET) return false;
  auto* nfg = static_cast<const nfgenmsg*>(mnl_nlmsg_get_payload(nlh));
  queue_num = ntohs(nfg->res_id);
  auto* end = reinterpret_cast<const char*>(mnl_nlmsg_get_payload_tail(nlh));
  bool have_id = false;
  arrival_real_ns = 0;
  for (auto* attr = static_cast<const nlattr*>(mnl_nlmsg_get_payload_offset(nlh, sizeof(nfgenmsg)));
       mnl_attr_ok(attr, static_cast<int>(end - reinterpret_cast<const char*>(attr)));
       attr = mnl_attr_next(attr)) {
    const auto type = mnl_attr_get_type(attr);
    if (type == NFQA_PACKET_HDR) {
      auto* hdr = static_cast<const nfqnl_msg_packet_hdr*>(mnl_attr_get_payload(attr));
      id = ntohl(hdr->packet_id);
      have_id = true;
    } else if (type == NFQA_TIMESTAMP &&
               mnl_attr_get_payload_len(attr) >= sizeof(nfqnl_msg_packet_timestamp)) {
      nfqnl_msg_packet_timestamp ts{};
      std::memcpy(&ts, mnl_attr_get_payload(attr), sizeof ts);
      arrival_real_ns = static_cast<std::int64_t>(be64toh(ts.sec)) * 1'000'000'000 +
                        static_cast<std::int64_t>(be64toh(ts.usec)) * 1'000;
    }
  }
  return have_id;
}

void NfqSocket::add_batch_verdict(int queue_num, std::uint32_t last_id) {
  const std::size_t offset = verdicts_.size();
  verdicts_.resize(offset + 64);
  nlmsghdr* nlh = nfq_nlmsg_put(verdicts_.data() + offset, NFQNL_MSG_VERDICT_BATCH,
                                static_cast<std::uint32_t>(queue_num));
  nfq_nlmsg_verdict_put(nlh, static_cast<int>(last_id), NF_ACCEPT);
  verdicts_.resize(offset + MNL_ALIGN(nlh->nlmsg_len));
}

void NfqSocket::flush_verdicts() {
  if (verdicts_.empty()) return;
  // nfnetlink processes every message of one datagram in order: one system call per round.
  if (mnl_socket_sendto(nl_, verdicts_.data(), verdicts_.size()) < 0) {
    verdicts_.clear();
    throw sys_error("sending verdicts");
  }
  verdicts_.clear();
}

}  // namespace geotrain::emu::delayer
