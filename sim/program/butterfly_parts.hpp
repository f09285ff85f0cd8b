#pragma once
// How hivemind's butterfly all-reduce splits the averaged vector among its peers.
//
// In a butterfly all-reduce (hivemind.averaging.allreduce) every peer is both a client and an
// aggregator: peer i owns part i of the vector; each peer sends part j of its vector to peer j
// (a direct reduce-scatter), peer j averages what it received and sends the average back to
// every peer (a direct all-gather). With a fraction f_i of V elements owned by peer i of n, peer
// i moves V (1 - f_i) as a client and V (n - 1) f_i as an aggregator each way, so its time is
// V (1 + (n - 2) f_i) / b_i for a bandwidth b_i.
//
// hivemind (averaging/load_balancing.py, load_balance_peers) chooses the fractions that
// minimise the slowest peer's time, a linear program it hands to scipy. Its optimum has a closed
// form (water-filling): the peers that own a part all finish together, T = (1 + (n - 2) f_i) /
// b_i, so f_i = (T b_i - 1) / (n - 2), and a peer whose bandwidth is below 1 / T owns nothing;
// with the k fastest peers owning parts, sum f_i = 1 gives T = (n - 2 + k) / (b_1 + ... + b_k),
// and k is the largest count whose slowest member still gets a positive share. With two peers
// every split takes the same time (each sends the other's part and gets it back): equal parts.
//
// Rules: hivemind (that optimum; the default), proportional (f_i = b_i / sum b: what one would
// guess, and what the optimum approaches for large n), equal (hivemind without bandwidths).
// Fractions are turned into element ranges by flooring the running sum (part_range), the same
// way in every executor; hivemind rounds with Hagenbach-Bischoff instead (at most one element
// per part apart).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/program/collective_schedule.hpp"

namespace geotrain {

enum class PartRule { hivemind, proportional, equal };

std::vector<std::string> part_rule_names();
std::optional<PartRule> part_rule_named(const std::string& name);
const char* to_string(PartRule rule);

// Fractions of the vector each peer owns (sum 1), from each peer's bandwidth (> 0).
std::vector<double> butterfly_fractions(const std::vector<double>& bandwidths, PartRule rule);

// Part q of `count` elements under `fractions` (one per peer, non-empty); peer = q.
Transfer part_range(std::size_t count, const std::vector<double>& fractions, int q);

}  // namespace geotrain
