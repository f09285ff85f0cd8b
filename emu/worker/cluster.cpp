#include "emu/worker/cluster.hpp"

#include <algorithm>
#include <thread>

#include <fmt/format.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "emu/worker/byte_text.hpp"
#include "sim/common/error.hpp"

namespace geotrain {

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t realtime_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Cluster::Cluster(const ClusterOptions& o, const Program& program)
    : options_(o),
      rank_(o.rank),
      world_size_(program.world_size),
      timeout_(static_cast<std::int64_t>(o.timeout_s * 1000)) {
  c10d::TCPStoreOptions so;
  so.port = static_cast<std::uint16_t>(o.store_port);
  so.isServer = o.rank == 0;
  so.numWorkers = static_cast<std::size_t>(world_size_);
  so.waitWorkers = false;
  so.timeout = timeout_;
  store_ = c10::make_intrusive<c10d::TCPStore>(o.store_addr, so);

  const CommGroupOptions group_options{o.transport, o.bind_addr, timeout_};
  if (o.transport == Transport::nccl) {
    world_ = make_comm_group(c10::make_intrusive<c10d::PrefixStore>("world/up", store_), rank_, world_size_,
                             group_options);
    world_down_ = make_comm_group(c10::make_intrusive<c10d::PrefixStore>("world/down", store_), rank_,
                                  world_size_, group_options);
  } else {
    world_ = make_comm_group(c10::make_intrusive<c10d::PrefixStore>("world", store_), rank_, world_size_,
                             group_options);
  }
  // Every rank creates its groups in ascending id order: group creation blocks until all its
  // members arrive, and a common order means no two ranks can wait on each other.
  for (const auto& g : program.groups) {
    const auto it = std::find(g.ranks.begin(), g.ranks.end(), rank_);
    if (it == g.ranks.end() || g.ranks.size() < 2) continue;
    const int pos = static_cast<int>(it - g.ranks.begin());
    positions_[g.id] = pos;
    groups_[g.id] = make_comm_group(c10::make_intrusive<c10d::PrefixStore>(fmt::format("group/{}", g.id), store_),
                                    pos, static_cast<int>(g.ranks.size()), group_options);
  }
  for (const auto& g : program.groups)
    if (g.ranks.size() == 1 && g.ranks[0] == rank_) positions_[g.id] = 0;
  // The epoch travels as wall-clock time: rank 0 publishes its epoch on CLOCK_REALTIME, each
  // rank maps it onto its own steady clock through its own (realtime - steady) offset. On one
  // kernel (the emulator) every process has the same offset, so this is rank 0's steady epoch
  // exactly; across machines (geotrain real) the ranks' times then agree as well as their
  // clocks are synchronised (NTP/chrony), instead of differing by the machines' uptimes.
  const std::int64_t offset_ns = realtime_ns() - steady_ns();
  if (rank_ == 0) store_->set("epoch_realtime_ns", bytes_of(std::to_string(steady_ns() + offset_ns)));
  const auto v = store_->get("epoch_realtime_ns");
  epoch_ns_ = std::stoll(std::string(v.begin(), v.end())) - offset_ns;
}

compat::CommGroup& Cluster::group(GroupId id) {
  const auto it = groups_.find(id);
  if (it == groups_.end())
    throw InputError(fmt::format("rank {} runs a collective on group {} but is not one of its "
                                 "members (or the group has one member)",
                                 rank_, id));
  return *it->second;
}

int Cluster::position(GroupId id) const {
  const auto it = positions_.find(id);
  if (it == positions_.end())
    throw InputError(fmt::format("rank {} is not a member of group {}", rank_, id));
  return it->second;
}

c10::intrusive_ptr<c10d::Store> Cluster::connect_store() const {
  c10d::TCPStoreOptions so;
  so.port = static_cast<std::uint16_t>(options_.store_port);
  so.isServer = false;
  so.waitWorkers = false;
  so.timeout = timeout_;
  return c10::make_intrusive<c10d::TCPStore>(options_.store_addr, so);
}

double Cluster::now_s() const { return static_cast<double>(steady_ns() - epoch_ns_) * 1e-9; }

std::chrono::steady_clock::duration Cluster::barrier(const std::string& name, bool last) {
  const auto key = "barrier/" + name;
  store_->add(key, 1);
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (store_->add(key, 0) < world_size_) {
    if (std::chrono::steady_clock::now() > deadline)
      throw TimeoutError(fmt::format("rank {}: barrier '{}' ({} of {} ranks arrived)", rank_, name,
                                     store_->add(key, 0), world_size_),
                         static_cast<double>(timeout_.count()) / 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // The store lives in rank 0's process: rank 0 must not exit (taking the store with it) while
  // a peer still polls the count above, or that peer fails with "Connection reset by peer".
  const auto seen_from = std::chrono::steady_clock::now();
  store_->add(key + "/seen", 1);
  while (rank_ == 0 && store_->add(key + "/seen", 0) < world_size_) {
    if (std::chrono::steady_clock::now() > deadline)
      throw TimeoutError(fmt::format("rank 0: barrier '{}': not every rank saw it complete", name),
                         static_cast<double>(timeout_.count()) / 1000);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // A peer's last "seen" is counted when its request reaches the store, but its reply is still
  // on the (shaped, possibly 250 ms) way back. If rank 0 exited now, the peer would read a reset
  // connection instead of the reply. Its request took at most the time rank 0 waited above, and
  // the reply takes about as long again: linger twice that, plus a margin for scheduling.
  const auto round_trip = std::chrono::steady_clock::now() - seen_from;
  if (rank_ == 0 && last) std::this_thread::sleep_for(2 * round_trip + std::chrono::milliseconds(200));
  return round_trip;
}

void Cluster::start_together(const std::string& name) {
  const auto round_trip = barrier(name, false);
  const auto key = "start_at/" + name;
  if (rank_ == 0) {
    const double lead_s = 2 * std::chrono::duration<double>(round_trip).count() + 0.2;
    store_->set(key, bytes_of(fmt::format("{:.9f}", now_s() + lead_s)));
  }
  const auto v = store_->get(key);  // waits for rank 0's value
  const double start_at_s = std::stod(std::string(v.begin(), v.end()));
  const double wait_s = start_at_s - now_s();
  if (wait_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
}

}  // namespace geotrain
