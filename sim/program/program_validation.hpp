#pragma once
// Checks a Program before any executor runs it, and throws geotrain::Error listing every problem
// found, one line each ("rank 3 op 7 'fwd s1 mb2': recv from 2 tag 4 has no matching send"):
//  - shape: world_size, device_of_rank and ranks agree; groups[g].id == g, group ranks valid
//    and distinct; peers in range and not the rank itself; bytes finite and >= 0;
//  - Send/Recv: the k-th send on (src, dst, tag) pairs with the k-th receive (executors match
//    in order, like MPI's non-overtaking rule); unmatched ones and byte mismatches are reported;
//  - collectives: entered only by members of their group, each member of a group enters the same
//    sequence of collectives (kind, bytes, algorithm, root, tag); the algorithm exists for that
//    kind and group (halving-doubling: all-reduce on a power-of-2 group; reduce-scatter and
//    all-gather: ring or direct; rooted kinds: direct or tree), as collective_schedule builds them;
//  - Wait: names earlier nonblocking ops of the same rank; every nonblocking op is waited for;
//  - deadlock: an abstract execution of the op order. Compute completes at once; a blocking
//    Send/Recv completes when its partner is posted (rendezvous, the strictest executor);
//    a nonblocking one completes when matched; a Collective completes when every member of its
//    group has entered that instance (a barrier); a Dynamic op is decided at run time and is
//    assumed to complete. Ranks that cannot finish are reported with the op they are stuck on.
#include <string>
#include <vector>

#include "sim/program/program.hpp"

namespace geotrain {

// Every problem found, empty when the Program is valid.
std::vector<std::string> program_problems(const Program& program);

// Throws geotrain::Error("invalid program <strategy>: ...") with one problem per line.
void validate_program(const Program& program);

}  // namespace geotrain
