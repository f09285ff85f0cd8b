#include "sim/program/program_validation.hpp"

#include <catch2/catch.hpp>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace program_validation_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

Program world(int n) {
  Program p;
  p.strategy = "hand-made";
  p.world_size = n;
  p.device_of_rank.resize(static_cast<std::size_t>(n));
  p.ranks.resize(static_cast<std::size_t>(n));
  std::vector<int> all;
  for (int r = 0; r < n; ++r) p.device_of_rank[static_cast<std::size_t>(r)] = r, all.push_back(r);
  p.groups.push_back({0, "world", all});
  return p;
}

void add(Program& p, int rank,
         std::variant<ComputeOp, SendOp, RecvOp, CollectiveOp, DynamicOp, WaitOp> body,
         bool nonblocking = false, const std::string& label = "op") {
  p.ranks[static_cast<std::size_t>(rank)].push_back({std::move(body), nonblocking, label});
}

CollectiveOp allreduce(GroupId g, double bytes, int tag = 0) {
  CollectiveOp c;
  c.group = g, c.bytes = bytes, c.tag = tag;
  return c;
}

std::string problems_of(const Program& p) {
  return test::joined(program_problems(p));
}

}  // namespace

TEST_CASE("a matched exchange with nonblocking sends and a collective is valid",
          "[program][validation]") {
  Program p = world(2);
  for (int r = 0; r < 2; ++r) {
    add(p, r, ComputeOp{});
    add(p, r, SendOp{1 - r, 100, 7, Payload::gradients}, true);
    add(p, r, RecvOp{1 - r, 100, 7, Payload::gradients});
    add(p, r, WaitOp{{1}});
    add(p, r, allreduce(0, 1e6));
  }
  CHECK(program_problems(p).empty());
  CHECK_NOTHROW(validate_program(p));
}

TEST_CASE("zero-byte messages and collectives are valid", "[program][validation]") {
  Program p = world(3);
  add(p, 0, SendOp{1, 0, 0, Payload::gradients});
  add(p, 1, RecvOp{0, 0, 0, Payload::gradients});
  for (int r = 0; r < 3; ++r) add(p, r, allreduce(0, 0));
  CHECK(program_problems(p).empty());
}

TEST_CASE("unmatched sends and receives and byte mismatches are reported",
          "[program][validation]") {
  Program p = world(3);
  add(p, 0, SendOp{1, 10, 1, Payload::gradients}, false, "send a");
  add(p, 1, RecvOp{0, 20, 1, Payload::gradients}, false, "recv a");
  add(p, 0, SendOp{2, 10, 5, Payload::gradients}, false, "lonely send");
  add(p, 2, RecvOp{1, 10, 9, Payload::gradients}, false, "lonely recv");
  const auto text = problems_of(p);
  CHECK_THAT(text,
             Contains("rank 0 op 0 'send a' sends 10 B but rank 1 op 0 'recv a' receives 20 B"));
  CHECK_THAT(text, Contains("rank 0 op 1 'lonely send': send to 2 tag 5 has no matching recv"));
  CHECK_THAT(text, Contains("rank 2 op 0 'lonely recv': recv from 1 tag 9 has no matching send"));
  CHECK_THROWS_AS(validate_program(p), Error);
  CHECK_THROWS_WITH(validate_program(p), Contains("invalid program 'hand-made' (3 problems)"));
}

TEST_CASE("bad peers and shapes are reported", "[program][validation]") {
  Program p = world(2);
  p.device_of_rank.pop_back();
  add(p, 0, SendOp{0, 1, 0, Payload::gradients});
  add(p, 1, RecvOp{5, 1, 0, Payload::gradients});
  p.groups.push_back({3, "misnumbered", {0, 0}});
  const auto text = problems_of(p);
  CHECK_THAT(text, Contains("device_of_rank has 1 entries for 2 ranks"));
  CHECK_THAT(text, Contains("rank 0 op 0 'op': peer 0 (expected another rank, 0 to 1)"));
  CHECK_THAT(text, Contains("rank 1 op 0 'op': peer 5"));
  CHECK_THAT(text, Contains("groups[1] has id 3 (expected 1)"));
  CHECK_THAT(text, Contains("lists rank 0 twice"));
}

TEST_CASE("collective errors: outsiders, order, bytes, algorithm", "[program][validation]") {
  Program p = world(4);
  p.groups.push_back({1, "pair", {0, 1}});
  add(p, 2, allreduce(1, 8), false, "outsider");
  add(p, 0, allreduce(1, 8, 0), false, "a0");
  add(p, 0, allreduce(1, 8, 1), false, "a1");
  add(p, 1, allreduce(1, 8, 1), false, "b1");
  add(p, 1, allreduce(1, 8, 0), false, "b0");
  for (int r = 0; r < 4; ++r) {
    CollectiveOp c = allreduce(0, r == 3 ? 16 : 32);
    if (r == 2) c.algorithm = CollectiveAlgorithm::tree;
    add(p, r, c, false, "world ar");
  }
  const auto text = problems_of(p);
  CHECK_THAT(text, Contains("rank 2 op 0 'outsider': rank 2 is not in group 1 'pair'"));
  CHECK_THAT(text, Contains("group 1 'pair': collective #0 differs: rank 0 op 0 'a0'"));
  CHECK_THAT(
      text,
      Contains("group 0 'world': collective #0 differs: rank 0 op 2 'world ar' is allreduce ring"));
  CHECK_THAT(text, Contains("rank 2 op 1 'world ar' is allreduce tree"));
  CHECK_THAT(text,
             Contains("rank 3 op 0 'world ar' is allreduce ring on group 0 'world' tag 0 (16 B)"));
}

TEST_CASE("an algorithm the executors lack is reported", "[program][validation]") {
  Program p = world(3);
  for (int r = 0; r < 3; ++r) {
    CollectiveOp c = allreduce(0, 8);
    c.algorithm = CollectiveAlgorithm::halving_doubling;
    add(p, r, c);
    CollectiveOp g = allreduce(0, 8);
    g.kind = CollectiveKind::gather, g.algorithm = CollectiveAlgorithm::ring;
    add(p, r, g);
  }
  const auto text = problems_of(p);
  CHECK_THAT(text, Contains("halving-doubling needs a power-of-2 group, this one has 3 ranks"));
  CHECK_THAT(text, Contains("gather with algorithm ring: expected direct or tree"));
}

TEST_CASE("waits must name earlier nonblocking ops and every nonblocking op is waited",
          "[program][validation]") {
  Program p = world(2);
  add(p, 0, SendOp{1, 1, 0, Payload::gradients}, false, "blocking send");
  add(p, 0, WaitOp{{0, 3}}, false, "bad wait");
  add(p, 0, SendOp{1, 1, 1, Payload::gradients}, true, "forgotten send");
  add(p, 0, ComputeOp{}, true, "async compute");
  add(p, 1, RecvOp{0, 1, 0, Payload::gradients});
  add(p, 1, RecvOp{0, 1, 1, Payload::gradients});
  const auto text = problems_of(p);
  CHECK_THAT(
      text,
      Contains("rank 0 op 1 'bad wait': waits for op 0 'blocking send', which is not nonblocking"));
  CHECK_THAT(text,
             Contains("rank 0 op 1 'bad wait': waits for op 3 (expected an earlier op, 0 to 0)"));
  CHECK_THAT(text,
             Contains("rank 0 op 2 'forgotten send': nonblocking but no later Wait names it"));
  CHECK_THAT(
      text,
      Contains("rank 0 op 3 'async compute': only send, recv, collective and dynamic ops can be"));
}

TEST_CASE("deadlock: both ranks receive first", "[program][validation][deadlock]") {
  Program p = world(2);
  for (int r = 0; r < 2; ++r) {
    add(p, r, RecvOp{1 - r, 4, 0, Payload::gradients}, false, "recv first");
    add(p, r, SendOp{1 - r, 4, 0, Payload::gradients}, false, "send second");
  }
  const auto text = problems_of(p);
  CHECK_THAT(
      text,
      Contains("deadlock: rank 0 op 0 'recv first' never completes: recv from 1 tag 0 (4 B)"));
  CHECK_THAT(text, Contains("deadlock: rank 1 op 0 'recv first' never completes"));
}

TEST_CASE("deadlock: blocking sends to each other need a rendezvous",
          "[program][validation][deadlock]") {
  Program p = world(2);
  for (int r = 0; r < 2; ++r) {
    add(p, r, SendOp{1 - r, 4, 0, Payload::gradients});
    add(p, r, RecvOp{1 - r, 4, 0, Payload::gradients});
  }
  CHECK_THAT(problems_of(p), Contains("deadlock: rank 0 op 0 'op' never completes: send to 1"));
  // Making the sends nonblocking (and waiting for them) resolves it.
  for (int r = 0; r < 2; ++r) {
    p.ranks[static_cast<std::size_t>(r)][0].nonblocking = true;
    add(p, r, WaitOp{{0}});
  }
  CHECK(program_problems(p).empty());
}

TEST_CASE("deadlock: groups entered in a cyclic order", "[program][validation][deadlock]") {
  Program p = world(3);
  p.groups.push_back({1, "A", {0, 1}});
  p.groups.push_back({2, "B", {1, 2}});
  p.groups.push_back({3, "C", {0, 2}});
  add(p, 0, allreduce(1, 8), false, "A"), add(p, 0, allreduce(3, 8), false, "C");
  add(p, 1, allreduce(2, 8), false, "B"), add(p, 1, allreduce(1, 8), false, "A");
  add(p, 2, allreduce(3, 8), false, "C"), add(p, 2, allreduce(2, 8), false, "B");
  const auto text = problems_of(p);
  CHECK_THAT(
      text,
      Contains(
          "deadlock: rank 0 op 0 'A' never completes: allreduce ring on group 1 'A' tag 0 (8 B) "
          "(1 of 2 members entered: ranks 0)"));
  CHECK_THAT(text, Contains("deadlock: rank 2 op 0 'C'"));
  // Nonblocking collectives with a final wait do not deadlock.
  for (int r = 0; r < 3; ++r) {
    for (auto& op : p.ranks[static_cast<std::size_t>(r)]) op.nonblocking = true;
    add(p, r, WaitOp{{0, 1}});
  }
  CHECK(program_problems(p).empty());
}

TEST_CASE("deadlock: a wait on a receive whose send comes after the receiver's own wait",
          "[program][validation][deadlock]") {
  Program p = world(2);
  add(p, 0, RecvOp{1, 1, 0, Payload::gradients}, true, "irecv");
  add(p, 0, WaitOp{{0}}, false, "wait irecv");
  add(p, 0, SendOp{1, 1, 1, Payload::gradients}, false, "reply");
  add(p, 1, RecvOp{0, 1, 1, Payload::gradients}, false, "wait reply");
  add(p, 1, SendOp{0, 1, 0, Payload::gradients}, false, "request");
  const auto text = problems_of(p);
  CHECK_THAT(
      text,
      Contains("deadlock: rank 0 op 1 'wait irecv' never completes: wait for 1 ops (pending: op 0 "
               "'irecv': recv from 1 tag 0 (1 B))"));
  CHECK_THAT(text, Contains("deadlock: rank 1 op 0 'wait reply' never completes"));
}

TEST_CASE("validation stays linear on a long pipeline of many ranks", "[program][validation]") {
  const int n = 512;
  Program p = world(n);
  for (int r = 0; r < n; ++r)
    for (int m = 0; m < 32; ++m) {
      if (r > 0) add(p, r, RecvOp{r - 1, 1, m, Payload::gradients});
      add(p, r, ComputeOp{});
      if (r + 1 < n) add(p, r, SendOp{r + 1, 1, m, Payload::gradients});
    }
  CHECK(program_problems(p).empty());
}

TEST_CASE("dynamic ops: members only, same sequence per group, assumed to complete",
          "[program][validation]") {
  Program p = world(3);
  p.groups.push_back({1, "pair", {0, 1}});
  DynamicOp gossip;
  gossip.group = 1, gossip.bytes = 64;
  add(p, 0, gossip), add(p, 1, gossip);
  CHECK(program_problems(p).empty());
  add(p, 2, gossip, false, "stranger");
  DynamicOp other = gossip;
  other.bytes = 32;
  add(p, 1, other, false, "different");
  add(p, 0, gossip, false, "same");
  const auto text = problems_of(p);
  CHECK_THAT(text, Contains("rank 2 op 0 'stranger': rank 2 is not in group 1"));
  CHECK_THAT(text, Contains("group 1 'pair': collective #1 differs: rank 0 op 1 'same' is gossip "
                            "on group 1 tag 0 (64 B), "
                            "rank 1 op 1 'different' is gossip on group 1 tag 0 (32 B)"));
}

TEST_CASE("a badly broken program is summarized, not dumped", "[program][validation]") {
  Program p = world(2);
  for (int i = 0; i < 100; ++i) add(p, 0, SendOp{1, 1, i, Payload::gradients});
  const auto problems = program_problems(p);
  REQUIRE(problems.size() == 61);
  CHECK(problems.back() == "... and 40 more problems");
}

TEST_CASE("payloads: transfers agree on what they carry, each op carries what it can",
          "[program][validation]") {
  Program p = world(2);
  add(p, 0, SendOp{1, 8, 0, Payload::activation, 3}, false, "send act");
  add(p, 1, RecvOp{0, 8, 0, Payload::activation_grad, 3}, false, "recv grad");
  add(p, 0, SendOp{1, 8, 1, Payload::activation}, false, "no micro-batch");
  add(p, 1, RecvOp{0, 8, 1, Payload::activation}, false, "no micro-batch either");
  add(p, 0, SendOp{1, 8, 2, Payload::weights, 4}, false, "weights of a micro-batch");
  add(p, 1, RecvOp{0, 8, 2, Payload::weights, 4}, false, "weights in");
  add(p, 0, SendOp{1, 8, 3, Payload::pseudo_gradient}, false, "p2p pseudo-gradient");
  add(p, 1, RecvOp{0, 8, 3, Payload::pseudo_gradient}, false, "p2p pseudo-gradient in");
  CollectiveOp activations = allreduce(0, 8);
  activations.payload = Payload::activation;
  for (int r = 0; r < 2; ++r) add(p, r, activations, false, "allreduce activations");
  DynamicOp gossip;
  gossip.payload = Payload::gradients;
  for (int r = 0; r < 2; ++r) add(p, r, gossip, false, "gossip gradients");
  const auto text = problems_of(p);
  CHECK_THAT(text, Contains("rank 0 op 0 'send act' sends activation of micro-batch 3 but rank 1 op 0 "
                            "'recv grad' receives activation_grad of micro-batch 3"));
  CHECK_THAT(text, Contains("rank 0 op 1 'no micro-batch': payload activation without a micro_batch "
                            "(expected >= 0)"));
  CHECK_THAT(text, Contains("rank 0 op 2 'weights of a micro-batch': payload weights with "
                            "micro_batch 4 (expected -1: only activations and their gradients "
                            "belong to a micro-batch)"));
  CHECK_THAT(text, Contains("rank 0 op 3 'p2p pseudo-gradient': payload pseudo_gradient (expected "
                            "activation, activation_grad, gradients, weights or state"));
  CHECK_THAT(text, Contains("rank 0 op 4 'allreduce activations': payload activation (expected "
                            "gradients, weights or pseudo_gradient)"));
  CHECK_THAT(text, Contains("rank 1 op 5 'gossip gradients': payload gradients (expected weights or "
                            "pseudo_gradient)"));
}

}  // namespace program_validation_test
