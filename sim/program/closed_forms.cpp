#include "sim/program/closed_forms.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "sim/common/small_math.hpp"

namespace geotrain {

namespace {

double ring_steps_time(const std::vector<LinkTime>& hops, double bytes, int steps) {
  const auto n = static_cast<double>(hops.size());
  if (hops.size() <= 1) return 0;
  double step = 0;
  for (const auto& h : hops) step = std::max(step, h.transfer_s(bytes / n));
  return steps * step;
}

}  // namespace

double ring_allreduce_time(const std::vector<LinkTime>& hops, double bytes) {
  return ring_steps_time(hops, bytes, 2 * (static_cast<int>(hops.size()) - 1));
}
double ring_reduce_scatter_time(const std::vector<LinkTime>& hops, double bytes) {
  return ring_steps_time(hops, bytes, static_cast<int>(hops.size()) - 1);
}
double ring_allgather_time(const std::vector<LinkTime>& hops, double bytes) {
  return ring_reduce_scatter_time(hops, bytes);
}
double ring_allreduce_time(int n, double bytes, LinkTime link) {
  return ring_allreduce_time(std::vector<LinkTime>(static_cast<std::size_t>(n), link), bytes);
}
double ring_allreduce_bytes_per_rank(int n, double bytes) {
  return 2.0 * (n - 1) / n * bytes;
}

double direct_gather_time(int n, int root, double bytes, const LinkOf& link) {
  double t = 0;
  for (int p = 0; p < n; ++p)
    if (p != root) t = std::max(t, link(p, root).transfer_s(bytes));
  return t;
}

double direct_scatter_time(int n, int root, double bytes, const LinkOf& link) {
  double t = 0;
  for (int p = 0; p < n; ++p)
    if (p != root) t = std::max(t, link(root, p).transfer_s(bytes));
  return t;
}

double direct_exchange_time(int n, double bytes, const LinkOf& link) {
  double t = 0;
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q)
      if (p != q) t = std::max(t, link(p, q).transfer_s(bytes / n));
  return t;
}

double butterfly_allreduce_time(const std::vector<double>& f, double bytes, const LinkOf& link) {
  const int n = static_cast<int>(f.size());
  if (n <= 1) return 0;
  const auto part = [&](int q) { return f[static_cast<std::size_t>(q)] * bytes; };
  std::vector<double> first(f.size(), 0);  // when each member finished the reduce-scatter
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q)
      if (p != q)
        first[static_cast<std::size_t>(p)] =
            std::max({first[static_cast<std::size_t>(p)], link(p, q).transfer_s(part(q)),
                      link(q, p).transfer_s(part(p))});
  double t = 0;
  for (int p = 0; p < n; ++p)
    for (int q = 0; q < n; ++q)
      if (p != q)
        t = std::max(t, std::max(first[static_cast<std::size_t>(p)], first[static_cast<std::size_t>(q)]) +
                            link(p, q).transfer_s(part(p)));
  return t;
}

double direct_gather_time_shared_nic(int n, double bytes, LinkTime nic) {
  return n <= 1 ? 0 : nic.latency_s + (n - 1) * bytes / nic.bandwidth_Bps;
}

// clock[v] is the time member v (virtual position, root = 0) finishes its latest step. Reduce:
// at mask m, v with bit m set sends to v - m and leaves; v + m (if any) sends to v. A transfer
// starts when both have finished their previous steps, as collective_schedule's steps do.
double tree_allreduce_time(int n, int root, double bytes, const LinkOf& link) {
  if (n <= 1) return 0;
  std::vector<double> clock(static_cast<std::size_t>(n), 0);
  const auto real = [&](int v) { return mod(v + root, n); };
  for (int mask = 1; mask < n; mask <<= 1)
    for (int v = 0; v + mask < n; v += 2 * mask) {
      auto& recv = clock[static_cast<std::size_t>(v)];
      const double sender = clock[static_cast<std::size_t>(v + mask)];
      recv = std::max(recv, sender) + link(real(v + mask), real(v)).transfer_s(bytes);
      clock[static_cast<std::size_t>(v + mask)] = recv;  // the sender's step ends with the transfer
    }
  int top = 1;
  while (top < n) top <<= 1;
  for (int mask = top >> 1; mask >= 1; mask >>= 1)
    for (int v = 0; v + mask < n; v += 2 * mask) {
      const double start =
          std::max(clock[static_cast<std::size_t>(v)], clock[static_cast<std::size_t>(v + mask)]);
      const double end = start + link(real(v), real(v + mask)).transfer_s(bytes);
      clock[static_cast<std::size_t>(v)] = clock[static_cast<std::size_t>(v + mask)] = end;
    }
  return *std::max_element(clock.begin(), clock.end());
}

double halving_doubling_allreduce_time(int n, double bytes, const LinkOf& link) {
  if (n <= 0 || (n & (n - 1)) != 0)
    throw std::invalid_argument("halving-doubling needs a power-of-2 group");
  std::vector<double> clock(static_cast<std::size_t>(n), 0);
  const auto exchange = [&](int mask, double size) {
    for (int p = 0; p < n; ++p) {
      const int q = p ^ mask;
      if (q < p) continue;
      const double start =
          std::max(clock[static_cast<std::size_t>(p)], clock[static_cast<std::size_t>(q)]);
      const double end = start + std::max(link(p, q).transfer_s(size), link(q, p).transfer_s(size));
      clock[static_cast<std::size_t>(p)] = clock[static_cast<std::size_t>(q)] = end;
    }
  };
  double size = bytes;
  for (int mask = n >> 1; mask >= 1; mask >>= 1) exchange(mask, size /= 2);
  for (int mask = 1; mask < n; mask <<= 1) exchange(mask, size), size *= 2;
  return *std::max_element(clock.begin(), clock.end());
}

double tandem_makespan(const std::vector<double>& service_s, int jobs) {
  if (service_s.empty() || jobs <= 0) return 0;
  const double sum = std::accumulate(service_s.begin(), service_s.end(), 0.0);
  return sum + (jobs - 1) * *std::max_element(service_s.begin(), service_s.end());
}

std::vector<double> gpipe_stage_end_times(const std::vector<double>& forward_s,
                                          const std::vector<double>& backward_s,
                                          const std::vector<double>& activation_link_s,
                                          const std::vector<double>& gradient_link_s, int m) {
  const int stages = static_cast<int>(forward_s.size());
  std::vector<double> line;
  for (int s = 0; s < stages; ++s) {
    if (s > 0) line.push_back(activation_link_s.at(static_cast<std::size_t>(s - 1)));
    line.push_back(forward_s[static_cast<std::size_t>(s)]);
  }
  const double forward_end = tandem_makespan(line, m);
  // Backward: all M micro-batches wait at the last stage when its forwards end.
  std::vector<double> ends(static_cast<std::size_t>(stages), 0);
  line.clear();
  for (int s = stages - 1; s >= 0; --s) {
    line.push_back(backward_s.at(static_cast<std::size_t>(s)));
    if (s > 0) line.push_back(gradient_link_s.at(static_cast<std::size_t>(s - 1)));
    ends[static_cast<std::size_t>(s)] = forward_end + tandem_makespan(line, m);
  }
  return ends;
}

double gpipe_iteration_time(const std::vector<double>& stage_end_s,
                            const std::vector<double>& sync_s,
                            const std::vector<double>& optimizer_s) {
  double t = 0;
  for (std::size_t s = 0; s < stage_end_s.size(); ++s)
    t = std::max(t, stage_end_s[s] + sync_s.at(s) + optimizer_s.at(s));
  return t;
}

double bucketed_fifo_time(const std::vector<double>& backward_s,
                          const std::vector<double>& allreduce_s) {
  double ready = 0, end = 0;
  for (std::size_t k = 0; k < backward_s.size(); ++k) {
    ready += backward_s[k];
    end = std::max(ready, end) + allreduce_s.at(k);
  }
  return end;
}

OverlapBounds bucketed_overlap_bounds(const std::vector<double>& backward_s,
                                      const std::vector<double>& allreduce_s) {
  if (backward_s.empty()) return {};
  const double compute = std::accumulate(backward_s.begin(), backward_s.end(), 0.0);
  const double comm = std::accumulate(allreduce_s.begin(), allreduce_s.end(), 0.0);
  return {std::max(compute + allreduce_s.back(), backward_s.front() + comm), compute + comm};
}

}  // namespace geotrain
