#include "sim/program/gloo_algorithms.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/common/error.hpp"
#include "sim/common/small_math.hpp"

namespace geotrain {

namespace {

std::size_t round_up(std::size_t v, std::size_t m) { return (v + m - 1) / m * m; }

GlooAction send(int peer, std::size_t bytes) { return {GlooAction::post_send, peer, bytes}; }
GlooAction recv(int peer, std::size_t bytes) { return {GlooAction::post_recv, peer, bytes}; }
GlooAction wait_send() { return {GlooAction::wait_send, 0, 0}; }
GlooAction wait_recv() { return {GlooAction::wait_recv, 0, 0}; }

// Length of segment `index` (segments past the end of the buffer are shorter or empty; Gloo
// skips empty ones entirely: no post, no wait).
std::size_t segment_length(const GlooRingPlan& plan, std::size_t index, std::size_t bytes) {
  const std::size_t offset = (index % plan.segments) * plan.segment_bytes;
  return offset >= bytes ? 0 : std::min(plan.segment_bytes, bytes - offset);
}

// One phase of Gloo's ring all-reduce (reduce-scatter: first segment index (p+1) spr, receive
// (p+2) spr; allgather: p spr and (p+1) spr). Iteration i first waits for the transfers posted
// at i-2, then posts its own: two in flight.
void ring_phase(std::vector<GlooAction>& out, const GlooRingPlan& plan, int n, int p,
                std::size_t send_first, std::size_t recv_first, std::size_t bytes) {
  const int send_to = mod(p - 1, n);
  const int recv_from = mod(p + 1, n);
  const auto send_len = [&](std::size_t i) { return segment_length(plan, send_first + i, bytes); };
  const auto recv_len = [&](std::size_t i) { return segment_length(plan, recv_first + i, bytes); };
  for (std::size_t i = 0; i < plan.iterations + 2; ++i) {
    if (i >= 2) {
      if (recv_len(i - 2) > 0) out.push_back(wait_recv());
      if (send_len(i - 2) > 0) out.push_back(wait_send());
    }
    if (i < plan.iterations) {
      if (recv_len(i) > 0) out.push_back(recv(recv_from, recv_len(i)));
      if (send_len(i) > 0) out.push_back(send(send_to, send_len(i)));
    }
  }
}

void ring_allreduce(std::vector<GlooAction>& out, int n, int p, std::size_t bytes,
                    std::size_t element_bytes) {
  const GlooRingPlan plan = gloo_ring_plan(bytes, n, element_bytes);
  const std::size_t spr = plan.segments_per_rank;
  const auto up = static_cast<std::size_t>(p);
  ring_phase(out, plan, n, p, (up + 1) * spr, (up + 2) * spr, bytes);  // reduce-scatter
  ring_phase(out, plan, n, p, up * spr, (up + 1) * spr, bytes);        // allgather
}

void binomial_broadcast(std::vector<GlooAction>& out, int n, int p, int root, std::size_t bytes) {
  const int v = mod(p - root, n);
  int dim = 0;
  while ((1 << dim) < n) ++dim;
  int mask = (1 << dim) - 1;
  int sends = 0;
  for (int i = 0; i < dim; ++i) {
    mask ^= (1 << i);
    if ((v & mask) != 0) continue;
    const int vpeer = v ^ (1 << i);
    if (vpeer >= n) continue;
    const int peer = mod(vpeer + root, n);
    if ((v & (1 << i)) == 0) {
      out.push_back(send(peer, bytes));
      ++sends;
    } else {
      out.push_back(recv(peer, bytes));
      out.push_back(wait_recv());
    }
  }
  for (int i = 0; i < sends; ++i) out.push_back(wait_send());
}

void gather(std::vector<GlooAction>& out, int n, int p, int root, std::size_t bytes) {
  if (p != root) {
    out.push_back(send(root, bytes));
    out.push_back(wait_send());
    return;
  }
  for (int q = 0; q < n; ++q)
    if (q != root) out.push_back(recv(q, bytes));
  for (int q = 1; q < n; ++q) out.push_back(wait_recv());
}

void scatter(std::vector<GlooAction>& out, int n, int p, int root, std::size_t bytes) {
  if (p != root) {
    out.push_back(recv(root, bytes));
    out.push_back(wait_recv());
    return;
  }
  for (int q = 0; q < n; ++q)
    if (q != root) out.push_back(send(q, bytes));
  for (int q = 1; q < n; ++q) out.push_back(wait_send());
}

// gloo/allgather.cc: each member's contribution is bytes / n, cut in two halves; iteration i
// forwards half (i & 1) of the chunk received two iterations earlier.
void ring_allgather(std::vector<GlooAction>& out, int n, int p, std::size_t bytes) {
  const std::size_t chunk = bytes / static_cast<std::size_t>(n);
  const std::size_t half[2] = {chunk / 2, chunk - chunk / 2};
  const int send_to = mod(p + 1, n);
  const int recv_from = mod(p - 1, n);
  for (int i = 0; i < (n - 1) * 2; ++i) {
    if (i >= 2) {
      out.push_back(wait_send());
      out.push_back(wait_recv());
    }
    out.push_back(send(send_to, half[i & 1]));
    out.push_back(recv(recv_from, half[i & 1]));
  }
  for (int i = 0; i < 2 && i < (n - 1) * 2; ++i) {
    out.push_back(wait_send());
    out.push_back(wait_recv());
  }
}

}  // namespace

GlooRingPlan gloo_ring_plan(std::size_t bytes, int group_size, std::size_t element_bytes,
                            std::size_t max_segment_bytes) {
  const auto n = static_cast<std::size_t>(group_size);
  const std::size_t max_seg = element_bytes * std::max<std::size_t>(1, max_segment_bytes / element_bytes);
  GlooRingPlan plan;
  plan.segments = round_up(std::max((bytes + max_seg - 1) / max_seg, 2 * n), n);
  plan.segments_per_rank = plan.segments / n;
  plan.segment_bytes = round_up((bytes + plan.segments - 1) / plan.segments, element_bytes);
  plan.iterations = plan.segments - plan.segments_per_rank;
  return plan;
}

std::vector<GlooAction> gloo_actions(CollectiveKind kind, int group_size, int position,
                                     int root_position, std::size_t bytes,
                                     std::size_t element_bytes) {
  std::vector<GlooAction> out;
  const int n = group_size;
  if (n <= 1) return out;
  switch (kind) {
    case CollectiveKind::allreduce:
      if (bytes > 0) ring_allreduce(out, n, position, bytes, element_bytes);
      return out;
    case CollectiveKind::broadcast:
      binomial_broadcast(out, n, position, root_position, bytes);
      return out;
    case CollectiveKind::gather:
      gather(out, n, position, root_position, bytes);
      return out;
    case CollectiveKind::scatter:
      scatter(out, n, position, root_position, bytes);
      return out;
    case CollectiveKind::allgather:
      if (bytes % (static_cast<std::size_t>(n) * element_bytes) != 0)
        throw InputError(fmt::format("library allgather of {} bytes over {} members: Gloo needs "
                                     "equal chunks (use a send/recv algorithm)", bytes, n));
      ring_allgather(out, n, position, bytes);
      return out;
    case CollectiveKind::reduce_scatter:
      throw InputError(fmt::format("library reduce_scatter of {} bytes over {} members: Gloo "
                                   "(LibTorch 1.13) has none (use algorithm ring or direct)", bytes, n));
    case CollectiveKind::reduce:
      throw InputError(fmt::format("library reduce of {} bytes over {} members: Gloo's reduce is "
                                   "not modelled (use algorithm tree or direct)", bytes, n));
  }
  return out;
}

std::size_t gloo_bytes_sent(const std::vector<GlooAction>& actions) {
  std::size_t sent = 0;
  for (const auto& a : actions)
    if (a.kind == GlooAction::post_send) sent += a.bytes;
  return sent;
}

}  // namespace geotrain
