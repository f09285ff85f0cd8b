#include "sim/program/collective_schedule.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/common/small_math.hpp"
#include "sim/program/butterfly_parts.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain {

namespace {

Transfer chunk_to(int peer, std::size_t count, int n, int q) {
  Transfer t = chunk_range(count, n, q);
  t.peer = peer;
  return t;
}
Transfer whole(int peer, std::size_t count) { return {peer, 0, count}; }

// Ring reduce-scatter (Patarasuk & Yuan): chunk c starts at member c+1 and travels once round the
// ring, summed at every hop, ending complete at its owner c after n-1 steps.
void ring_reduce_scatter(std::vector<CollectiveStep>& out, int n, int p, std::size_t count) {
  for (int s = 0; s < n - 1; ++s)
    out.push_back({{chunk_to(mod(p + 1, n), count, n, mod(p - s - 1, n))},
                   {chunk_to(mod(p - 1, n), count, n, mod(p - s - 2, n))},
                   true});
}

// Ring all-gather: each member forwards the chunk it received last step.
void ring_allgather(std::vector<CollectiveStep>& out, int n, int p, std::size_t count) {
  for (int s = 0; s < n - 1; ++s)
    out.push_back({{chunk_to(mod(p + 1, n), count, n, mod(p - s, n))},
                   {chunk_to(mod(p - 1, n), count, n, mod(p - s - 1, n))},
                   false});
}

// Binomial tree towards the root (virtual position 0): at step k a member whose bit k is set
// sends its partial sum to the member 2^k below and leaves the tree.
void tree_reduce(std::vector<CollectiveStep>& out, int n, int p, int root, std::size_t count) {
  // Members that have left still get (empty) steps: step k means the same exchange on every
  // member, which is what lets executors tag transfers by step index.
  const int v = mod(p - root, n);
  bool left = false;
  for (int mask = 1; mask < n; mask <<= 1) {
    CollectiveStep step{{}, {}, true};
    if (!left && (v & mask)) {
      step.sends.push_back(whole(mod(v - mask + root, n), count));
      left = true;
    } else if (!left && v + mask < n) {
      step.recvs.push_back(whole(mod(v + mask + root, n), count));
    }
    out.push_back(step);
  }
}

// Binomial broadcast: the mirror image of tree_reduce (highest bit first).
void tree_broadcast(std::vector<CollectiveStep>& out, int n, int p, int root, std::size_t count) {
  const int v = mod(p - root, n);
  int top = 1;
  while (top < n) top <<= 1;
  for (int mask = top >> 1; mask >= 1; mask >>= 1) {
    CollectiveStep step{{}, {}, false};
    if (v % (2 * mask) == 0 && v + mask < n) step.sends.push_back(whole(mod(v + mask + root, n), count));
    else if (v % (2 * mask) == mask) step.recvs.push_back(whole(mod(v - mask + root, n), count));
    out.push_back(step);  // empty for members idle at this step (see tree_reduce)
  }
}

void direct_to_root(std::vector<CollectiveStep>& out, int n, int p, int root, std::size_t count) {
  CollectiveStep step{{}, {}, true};
  if (p == root) {
    for (int q = 0; q < n; ++q)
      if (q != root) step.recvs.push_back(whole(q, count));
  } else {
    step.sends.push_back(whole(root, count));
  }
  out.push_back(step);
}

void direct_from_root(std::vector<CollectiveStep>& out, int n, int p, int root, std::size_t count) {
  CollectiveStep step{{}, {}, false};
  if (p == root) {
    for (int q = 0; q < n; ++q)
      if (q != root) step.sends.push_back(whole(q, count));
  } else {
    step.recvs.push_back(whole(root, count));
  }
  out.push_back(step);
}

// Direct reduce-scatter / all-gather: every member exchanges chunks with every other at once.
// `fractions` (one per member) size the chunks of a butterfly (butterfly_parts.hpp); empty:
// chunk_range's equal split.
void direct_exchange(std::vector<CollectiveStep>& out, int n, int p, std::size_t count,
                     bool reduce, const std::vector<double>& fractions = {}) {
  const auto part = [&](int peer, int q) {
    if (fractions.empty()) return chunk_to(peer, count, n, q);
    Transfer t = part_range(count, fractions, q);
    t.peer = peer;
    return t;
  };
  CollectiveStep step{{}, {}, reduce};
  for (int q = 0; q < n; ++q) {
    if (q == p) continue;
    step.sends.push_back(part(q, reduce ? q : p));
    step.recvs.push_back(part(q, reduce ? p : q));
  }
  out.push_back(step);
}

// Rabenseifner: recursive halving reduce-scatter, then recursive doubling all-gather. Member p
// keeps the half of its current range on its side of the partner; ranges are power-of-2 splits.
void halving_doubling(std::vector<CollectiveStep>& out, int n, int p, std::size_t count) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // [begin, end) kept before each step
  std::size_t begin = 0, end = count;
  for (int mask = n >> 1; mask >= 1; mask >>= 1) {
    const int partner = p ^ mask;
    const std::size_t mid = begin + (end - begin) / 2;
    const bool lower = (p & mask) == 0;
    const std::size_t keep_b = lower ? begin : mid, keep_e = lower ? mid : end;
    const std::size_t give_b = lower ? mid : begin, give_e = lower ? end : mid;
    out.push_back({{{partner, give_b, give_e - give_b}}, {{partner, keep_b, keep_e - keep_b}}, true});
    ranges.emplace_back(begin, end);
    begin = keep_b, end = keep_e;
  }
  for (int mask = 1; mask < n; mask <<= 1) {
    const int partner = p ^ mask;
    const auto [outer_b, outer_e] = ranges.back();
    ranges.pop_back();
    const bool mine_low = begin == outer_b;
    const std::size_t other_b = mine_low ? end : outer_b, other_e = mine_low ? outer_e : begin;
    out.push_back({{{partner, begin, end - begin}}, {{partner, other_b, other_e - other_b}}, false});
    begin = outer_b, end = outer_e;
  }
}

[[noreturn]] void unsupported(CollectiveKind kind, CollectiveAlgorithm algorithm, int n,
                              const char* why) {
  throw InputError(fmt::format("collective {} with algorithm {} over {} members: {}",
                               json_name(kind), json_name(algorithm), n, why));
}

}  // namespace

Transfer chunk_range(std::size_t count, int n, int q) {
  const auto un = static_cast<std::size_t>(n), uq = static_cast<std::size_t>(q);
  const std::size_t b = count * uq / un, e = count * (uq + 1) / un;
  return {q, b, e - b};
}

std::vector<CollectiveStep> collective_schedule(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                int n, int p, int root, std::size_t count,
                                                const std::vector<double>& part_fractions) {
  using A = CollectiveAlgorithm;
  using K = CollectiveKind;
  if (n < 1 || p < 0 || p >= n || root < 0 || root >= n)
    throw InputError(fmt::format("collective schedule: position {} / root {} outside a group of {}",
                                 p, root, n));
  std::vector<CollectiveStep> out;
  if (n == 1) return out;
  if (algorithm == A::library) unsupported(kind, algorithm, n, "the library runs its own steps");
  if (!part_fractions.empty() && static_cast<int>(part_fractions.size()) != n)
    throw InputError(fmt::format("collective schedule: {} part fractions for a group of {}",
                                 part_fractions.size(), n));
  if (algorithm == A::butterfly) {
    // hivemind's butterfly: a direct reduce-scatter into each member's part, then a direct
    // all-gather of the averaged parts (butterfly_parts.hpp).
    if (kind == K::allreduce || kind == K::reduce_scatter)
      direct_exchange(out, n, p, count, true, part_fractions);
    if (kind == K::allreduce || kind == K::allgather)
      direct_exchange(out, n, p, count, false, part_fractions);
    if (out.empty()) unsupported(kind, algorithm, n, "a butterfly is an all-reduce, reduce-scatter or all-gather");
    return out;
  }
  switch (kind) {
    case K::allreduce:
      if (algorithm == A::ring) ring_reduce_scatter(out, n, p, count), ring_allgather(out, n, p, count);
      else if (algorithm == A::tree) tree_reduce(out, n, p, root, count), tree_broadcast(out, n, p, root, count);
      else if (algorithm == A::direct) direct_to_root(out, n, p, root, count), direct_from_root(out, n, p, root, count);
      else if ((n & (n - 1)) == 0) halving_doubling(out, n, p, count);
      else unsupported(kind, algorithm, n, "halving-doubling needs a power-of-2 group");
      return out;
    case K::reduce_scatter:
    case K::allgather: {
      const bool rs = kind == K::reduce_scatter;
      if (algorithm == A::ring) rs ? ring_reduce_scatter(out, n, p, count) : ring_allgather(out, n, p, count);
      else if (algorithm == A::direct) direct_exchange(out, n, p, count, rs);
      else unsupported(kind, algorithm, n, "use ring or direct");
      return out;
    }
    case K::reduce:
    case K::gather:
      if (algorithm == A::tree) tree_reduce(out, n, p, root, count);
      else if (algorithm == A::direct) direct_to_root(out, n, p, root, count);
      else unsupported(kind, algorithm, n, "use direct or tree");
      return out;
    case K::broadcast:
    case K::scatter:
      if (algorithm == A::tree) tree_broadcast(out, n, p, root, count);
      else if (algorithm == A::direct) direct_from_root(out, n, p, root, count);
      else unsupported(kind, algorithm, n, "use direct or tree");
      return out;
  }
  return out;
}

std::size_t elements_sent(const std::vector<CollectiveStep>& steps) {
  std::size_t n = 0;
  for (const auto& s : steps)
    for (const auto& t : s.sends) n += t.count;
  return n;
}

}  // namespace geotrain
