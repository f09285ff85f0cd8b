#include "test_programs.hpp"

namespace geotrain::test {

Scenario matrix_scenario(int n, const std::vector<double>& delay_s, const std::vector<double>& bandwidth_Bps) {
  Scenario s;
  s.name = "engine_test";
  for (int d = 0; d < n; ++d) s.devices.push_back({d, "V100", 1});
  s.network = Topology::matrix({"all"}, std::vector<int>(static_cast<std::size_t>(n), 0), delay_s, bandwidth_Bps);
  s.network_source = "matrix";
  return s;
}

Scenario uniform_scenario(int n, double delay_s, double bandwidth_Bps) {
  const auto cells = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  return matrix_scenario(n, std::vector<double>(cells, delay_s), std::vector<double>(cells, bandwidth_Bps));
}

Scenario one_region_scenario(int n, double delay_s, double bandwidth_Bps) {
  Scenario s;
  s.name = "engine_test_region";
  for (int d = 0; d < n; ++d) s.devices.push_back({d, "V100", 1});
  s.network = Topology::regional({"all"}, std::vector<int>(static_cast<std::size_t>(n), 0),
                                 {{delay_s, bandwidth_Bps}}, {{0, 0}});
  s.network_source = "regions";
  return s;
}

Scenario three_region_scenario(int n) {
  Scenario s;
  s.name = "engine_test_three_regions";
  std::vector<int> region;
  for (int d = 0; d < n; ++d) {
    s.devices.push_back({d, "V100", 1});
    region.push_back(d % 5 == 0 ? 0 : d % 5 < 3 ? 1 : 2);
  }
  s.network = Topology::regional({"a", "b", "c"}, region,
                                 {{0.002, 1.25e9}, {0.004, 5e8}, {0.001, 2.5e9}},
                                 {{0, 0}, {0.030, 2e8}, {0.050, 1e9},
                                  {0.030, 2e8}, {0, 0}, {0.020, 6e8},
                                  {0.050, 1e9}, {0.020, 6e8}, {0, 0}});
  s.network_source = "regions";
  return s;
}

Program empty_program(int n) {
  Program p;
  p.strategy = "hand-built";
  p.world_size = n;
  Group world{0, "world", {}};
  for (int r = 0; r < n; ++r) p.device_of_rank.push_back(r), world.ranks.push_back(r);
  p.groups.push_back(world);
  p.ranks.resize(static_cast<std::size_t>(n));
  return p;
}

Op compute(double seconds, ComputeKind kind, int stage, int micro_batch) {
  ComputeOp c;
  c.kind = kind;
  c.stage = stage;
  c.micro_batch = micro_batch;
  c.flops = seconds * 1e12;
  return {c, false, "compute"};
}

Op collective(CollectiveKind kind, double bytes, CollectiveAlgorithm a, int root, bool nonblocking, GroupId group) {
  CollectiveOp c;
  c.kind = kind;
  c.bytes = bytes;
  c.algorithm = a;
  c.root = root;
  c.group = group;
  return {c, nonblocking, "collective"};
}

Op send(int peer, double bytes, int tag, bool nonblocking) { return {SendOp{peer, bytes, tag}, nonblocking, "send"}; }
Op recv(int peer, double bytes, int tag, bool nonblocking) { return {RecvOp{peer, bytes, tag}, nonblocking, "recv"}; }
Op wait(std::vector<int> ops) { return {WaitOp{std::move(ops)}, false, "wait"}; }

Program gpipe_program(int stages, int micro_batches, double forward_s, double backward_s, double bytes) {
  Program p = empty_program(stages);
  for (int s = 0; s < stages; ++s) {
    auto& ops = p.ranks[static_cast<std::size_t>(s)];
    for (int m = 0; m < micro_batches; ++m) {
      if (s > 0) ops.push_back(recv(s - 1, bytes, m));
      ops.push_back(compute(forward_s, ComputeKind::forward, s, m));
      if (s + 1 < stages) ops.push_back(send(s + 1, bytes, m, true));
    }
    for (int m = micro_batches - 1; m >= 0; --m) {
      if (s + 1 < stages) ops.push_back(recv(s + 1, bytes, 1000 + m));
      ops.push_back(compute(backward_s, ComputeKind::backward, s, m));
      if (s > 0) ops.push_back(send(s - 1, bytes, 1000 + m, true));
    }
  }
  return p;
}

double ring_allreduce_closed_form_s(int n, double bytes, double latency_s, double bandwidth_Bps) {
  return 2.0 * (n - 1) / n * bytes / bandwidth_Bps + 2.0 * (n - 1) * latency_s;
}

double rank0_compute_s(const Program& p) {
  double s = 0;
  for (const auto& op : p.ranks[0])
    if (const auto* c = op.as<ComputeOp>()) s += c->flops * 1e-12;
  return s;
}

}  // namespace geotrain::test
