#include "emu/net/linktest/link_test.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "emu/net/interrupt.hpp"
#include "emu/net/linktest/icmp_probe.hpp"
#include "emu/net/linktest/link_probe.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"

namespace geotrain::emu {

namespace {

constexpr int kRttPort = 5301;
constexpr int kBulkPort = 5302;
constexpr int kIcmpProbes = 5;
// TCP payload per wire byte with a 1500-byte MTU and timestamps: 1448 of 1514 (HTB counts the
// Ethernet header too).
constexpr double kPayloadShare = 1448.0 / 1514.0;

std::vector<std::pair<int, int>> sampled_pairs(int ranks, const std::string& spec, std::uint64_t seed) {
  std::vector<std::pair<int, int>> all;
  for (int s = 0; s < ranks; ++s)
    for (int d = 0; d < ranks; ++d)
      if (s != d) all.emplace_back(s, d);
  if (spec == "all") return all;
  long k = -1;
  if (spec.rfind("sample:", 0) == 0) {
    try {
      k = std::stol(spec.substr(7));
    } catch (const std::exception&) {
    }
  }
  if (k < 1) throw InputError("--pairs = '" + spec + "': expected 'all' or 'sample:K' with K >= 1");
  // Fisher-Yates with mt19937_64 (its output is fixed by the standard; std::shuffle is not).
  std::mt19937_64 rng(seed);
  for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng() % i]);
  all.resize(std::min(all.size(), static_cast<std::size_t>(k)));
  return all;
}

// Runs f(pair index) for every pair of a round on its own thread; rethrows the first failure.
template <typename F>
void for_each_parallel(std::size_t n, F&& f) {
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace

std::vector<std::vector<std::pair<int, int>>> linktest_rounds(int ranks, const std::string& pairs,
                                                              bool sequential, std::uint64_t seed) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (pairs == "all" && !sequential) {
    // Round k: every rank i sends to i + k. Each rank sends once and receives once.
    for (int k = 1; k < ranks; ++k) {
      rounds.emplace_back();
      for (int i = 0; i < ranks; ++i) rounds.back().emplace_back(i, (i + k) % ranks);
    }
    return rounds;
  }
  for (const auto& p : sampled_pairs(ranks, pairs, seed)) {
    // First round where neither the sender sends nor the receiver receives yet.
    auto fits = [&](const std::vector<std::pair<int, int>>& r) {
      return !sequential && std::none_of(r.begin(), r.end(), [&](const auto& q) {
        return q.first == p.first || q.second == p.second;
      });
    };
    auto it = std::find_if(rounds.begin(), rounds.end(), fits);
    if (it == rounds.end()) rounds.push_back({p});
    else it->push_back(p);
  }
  return rounds;
}

std::vector<LinkMeasurement> run_linktest(const Scenario& scenario, const ClusterLayout& layout,
                                          const LinktestOptions& o) {
  const Topology net = scenario.effective_network();
  std::vector<LinkMeasurement> out;
  for (const auto& round : linktest_rounds(layout.ranks(), o.pairs, o.sequential, scenario.seed)) {
    throw_if_interrupted();
    std::vector<LinkMeasurement> m(round.size());
    for (std::size_t i = 0; i < round.size(); ++i) {
      auto [s, d] = round[i];
      m[i].src = s, m[i].dst = d;
      m[i].delay_s = net.delay_s(s, d);
      m[i].rtt_s = net.delay_s(s, d) + net.delay_s(d, s);
      m[i].bandwidth_Bps = net.bandwidth_Bps(s, d);
      m[i].payload_ceiling_Bps = m[i].bandwidth_Bps * kPayloadShare;
    }
    auto endpoint = [&](int dst, int port) {
      return Endpoint{layout.rank_namespace(dst), layout.rank_address(dst), port};
    };
    // RTT first, with no bulk traffic queued in front of the probes. A median off tolerance is
    // measured once more (the delayer, a user-space process, was seen +8 ms on a 22 ms RTT for a
    // whole CI run's minute and right the next) and the closer one kept; rtt_attempts records it.
    auto delay_ok = [&](const LinkMeasurement& l) {
      return std::abs(l.delay_error_s()) <= o.delay_tolerance_s + o.delay_tolerance_rel * l.rtt_s / 2;
    };
    auto rtt = [&](std::size_t i) {
      const double timeout = 10 + 4 * m[i].rtt_s;
      const RttResult r = measure_rtt(layout.rank_namespace(m[i].src), endpoint(m[i].dst, kRttPort),
                                      o.probes, timeout);
      const bool first = m[i].rtt_attempts++ == 0;
      if (first || std::abs(r.median_s - m[i].rtt_s) < std::abs(m[i].measured_rtt_s - m[i].rtt_s)) {
        m[i].measured_rtt_s = r.median_s;
        m[i].measured_min_rtt_s = r.min_s;
      }
    };
    for_each_parallel(round.size(), rtt);
    std::vector<std::size_t> off;
    for (std::size_t i = 0; i < round.size(); ++i)
      if (!delay_ok(m[i])) off.push_back(i);
    for_each_parallel(off.size(), [&](std::size_t k) { rtt(off[k]); });
    // What ping would show for the same link (ICMP is delayed on the sender's egress, so its
    // kernel timestamps see both one-way delays; docs/emulated-network.md).
    for_each_parallel(round.size(), [&](std::size_t i) {
      m[i].icmp_rtt_s = measure_icmp_rtt(layout.rank_namespace(m[i].src), layout.rank_address(m[i].dst),
                                         kIcmpProbes, 0.02, 2 + 2 * m[i].rtt_s).median_s;
    });
    // One bulk flow per link. A single cubic flow that loses a packet while ramping up on a long
    // link recovers slowly and can read 30-70% of the rate once in a while (seen in CI on the
    // 262 ms pair, never twice in a row), so a probe below tolerance is repeated once and the
    // better one kept; bulk_attempts records it.
    auto bulk = [&](std::size_t i) {
      const double window = o.window_s > 0 ? o.window_s : std::max(1.0, 4 * m[i].rtt_s);
      const double duration = ramp_time_s(m[i].bandwidth_Bps, m[i].rtt_s) + window;
      const BulkResult b = measure_bulk(layout.rank_namespace(m[i].src), endpoint(m[i].dst, kBulkPort),
                                        duration, window, 10 + 4 * m[i].rtt_s + duration);
      ++m[i].bulk_attempts;
      if (b.goodput_Bps > m[i].goodput_Bps) {
        m[i].goodput_Bps = b.goodput_Bps;
        m[i].congestion_control = b.congestion_control;
      }
    };
    for_each_parallel(round.size(), bulk);
    std::vector<std::size_t> again;
    for (std::size_t i = 0; i < round.size(); ++i)
      if (std::abs(m[i].bandwidth_error_rel()) > o.bandwidth_tolerance_rel) again.push_back(i);
    for_each_parallel(again.size(), [&](std::size_t k) { bulk(again[k]); });
    for (auto& l : m) {
      l.delay_ok = delay_ok(l);
      l.bandwidth_ok = std::abs(l.bandwidth_error_rel()) <= o.bandwidth_tolerance_rel;
      log::info("emu.linktest", "{}->{}: rtt {:.2f} ms (configured {:.2f}), {:.3f} Gbit/s payload "
                "(ceiling {:.3f})", l.src, l.dst, l.measured_rtt_s * 1e3, l.rtt_s * 1e3,
                l.goodput_Bps * 8e-9, l.payload_ceiling_Bps * 8e-9);
      out.push_back(l);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::pair(a.src, a.dst) < std::pair(b.src, b.dst);
  });
  return out;
}

std::string linktest_table(const std::vector<LinkMeasurement>& links) {
  std::string t = fmt::format("{:>4} {:>4} | {:>9} {:>9} {:>8} {:>9} | {:>9} {:>9} {:>9} {:>7} | {}\n",
                              "src", "dst", "delay ms", "achieved", "err ms", "ping/2", "Gbit/s", "ceiling",
                              "achieved", "err %", "result");
  for (const auto& l : links)
    t += fmt::format("{:>4} {:>4} | {:>9.3f} {:>9.3f} {:>+8.3f} {:>9} | {:>9.4f} {:>9.4f} {:>9.4f} {:>+7.2f} | {}\n",
                     l.src, l.dst, l.rtt_s / 2 * 1e3, l.measured_rtt_s / 2 * 1e3,
                     l.delay_error_s() * 1e3,
                     l.icmp_rtt_s > 0 ? fmt::format("{:.3f}", l.icmp_rtt_s / 2 * 1e3) : std::string("-"),
                     l.bandwidth_Bps * 8e-9, l.payload_ceiling_Bps * 8e-9,
                     l.goodput_Bps * 8e-9, l.bandwidth_error_rel() * 100,
                     l.delay_ok && l.bandwidth_ok ? "ok"
                     : !l.delay_ok && !l.bandwidth_ok ? "FAIL (delay, bandwidth)"
                     : !l.delay_ok ? "FAIL (delay)" : "FAIL (bandwidth)");
  t += "delay: one way; achieved = TCP echo RTT / 2 (judged); ping/2 = ICMP echo RTT / 2 as ping "
       "times it (shown, not judged)\n";
  return t;
}

std::string linktest_json(const Scenario& scenario, const ClusterLayout& layout,
                          const LinktestOptions& o, const std::vector<LinkMeasurement>& links) {
  using nlohmann::json;
  json arr = json::array();
  bool passed = true;
  for (const auto& l : links) {
    passed = passed && l.delay_ok && l.bandwidth_ok;
    arr.push_back({{"src", l.src}, {"dst", l.dst},
                   {"configured", {{"one_way_delay_s", l.delay_s}, {"rtt_s", l.rtt_s},
                                   {"bandwidth_bps", l.bandwidth_Bps * 8},
                                   {"payload_ceiling_bps", l.payload_ceiling_Bps * 8}}},
                   {"achieved", {{"rtt_s", l.measured_rtt_s}, {"min_rtt_s", l.measured_min_rtt_s},
                                 {"icmp_rtt_s", l.icmp_rtt_s}, {"goodput_bps", l.goodput_Bps * 8},
                                 {"congestion_control", l.congestion_control}}},
                   {"error", {{"delay_s", l.delay_error_s()}, {"bandwidth_rel", l.bandwidth_error_rel()},
                              {"goodput_of_configured", l.goodput_Bps / l.bandwidth_Bps}}},
                   {"bulk_attempts", l.bulk_attempts},
                   {"rtt_attempts", l.rtt_attempts},
                   {"delay_ok", l.delay_ok}, {"bandwidth_ok", l.bandwidth_ok}});
  }
  json j = {{"scenario", scenario.name}, {"cluster", layout.cluster()},
            {"bandwidth_scale", scenario.emulation.bandwidth_scale},
            {"delay_scale", scenario.emulation.delay_scale},
            {"tolerance", {{"delay_s", o.delay_tolerance_s}, {"delay_rel", o.delay_tolerance_rel},
                           {"bandwidth_rel", o.bandwidth_tolerance_rel},
                           {"delay_compared", "measured RTT / 2 vs configured RTT / 2"},
                           {"bandwidth_compared", "goodput vs bandwidth x 1448/1514"}}},
            {"pairs", o.pairs}, {"links", arr}, {"passed", passed}};
  return j.dump(2) + "\n";
}

}  // namespace geotrain::emu
