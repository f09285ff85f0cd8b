#pragma once
// The ring all-reduce's max-plus recurrence in O(N x G) instead of O(N^2) (G = distinct link
// step times), for rings of tens of thousands of members.
//
// aggregated_ring.hpp steps e(p,k+1) = max(e(p-1,k), e(p,k), e(p+1,k)) + T(p,k+1) for 2(N-1)
// steps: N x 2N maxima, 8.6e9 at 65,536 members, 1.4e11 at 262,144. When the step time of a link
// does not depend on the step (T(p,k) = T_p: every chunk the same size), e(p, j) is the heaviest
// walk of j steps on the ring (each step: stay, or move to a neighbour; the node arrived at adds
// its T) that starts at some q with weight e(q,0) and ends at p. Such a walk can be taken to go
// straight from q to its heaviest node r, stay there, and go straight on to p; so
//   e(p, j) = max over r, q, directions of  e(q,0) + sum(T on q->r) + sum(T on r->p)
//                                            + (j - |q->r| - |r->p|) T_r,
// and for all r of one step time tau the inner maxima over q (and then over r for every p) are
// sliding-window maxima of prefix sums of (T - tau): four O(N) passes per distinct tau.
//
// Why it is exact for all-reduce (j = 2N-3 steps after the first): a walk that reaches r the long
// way round (N-1 steps) has visited every node, so r is the heaviest of all and going the short
// way round is as heavy; legs are therefore taken at most N-2 steps to r and N-1 on to p, which
// always fits in j. A reduce-scatter or all-gather alone (j = N-2) does not fit; it keeps the
// stepping form.
#include <optional>
#include <vector>

namespace geotrain::engine {

// e(p, steps) for p in [0, N): first = e(., 0), step_s = T_p. steps must be >= 2N - 3.
// nullopt when the links have more than `max_classes` distinct step times (the form would cost
// more than stepping would save: the caller steps instead).
std::optional<std::vector<double>> ring_walk_max(const std::vector<double>& first,
                                                 const std::vector<double>& step_s, long steps,
                                                 int max_classes = 256);

// The same by stepping the recurrence (O(N x steps)): the reference the test compares with.
std::vector<double> ring_walk_steps(const std::vector<double>& first,
                                    const std::vector<double>& step_s, long steps);

}  // namespace geotrain::engine
