#include "real/probe_measure.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <exception>
#include <mutex>
#include <thread>

#include "real/link_measure.hpp"
#include "real/probe_remote.hpp"
#include "real/probe_rounds.hpp"
#include "real/shell_quote.hpp"
#include "sim/common/error.hpp"

namespace geotrain::real {

namespace {

struct Tool {
  const char* name;
  const char* expected;
};
constexpr Tool kTools[] = {{"ping", "iputils-ping installed"},
                           {"iperf3", "iperf3 installed, e.g. apt-get install iperf3"},
                           {"timeout", "coreutils' timeout"},
                           {"setsid", "util-linux' setsid"}};

// Runs fn(i) for i in [0, n) on threads of their own; the messages of those that threw.
std::vector<std::string> run_parallel(std::size_t n, const std::function<void(std::size_t)>& fn) {
  std::vector<std::string> errors(n);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < n; ++i)
    threads.emplace_back([&, i] {
      try {
        fn(i);
      } catch (const std::exception& e) {
        errors[i] = e.what();
      }
    });
  for (auto& t : threads) t.join();
  std::vector<std::string> out;
  for (auto& e : errors)
    if (!e.empty()) out.push_back(std::move(e));
  return out;
}

[[noreturn]] void throw_all(const std::vector<std::string>& errors) {
  std::string text;
  for (const auto& e : errors) text += (text.empty() ? "" : "\n") + e;
  throw Error(text);
}

std::string read_all(int fd) {
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
    text.append(buf, static_cast<std::size_t>(n));
  return text;
}

std::string pair_name(const HostsFile& hosts, int a, int b) {
  return hosts.hosts[static_cast<std::size_t>(a)].name + " -> " +
         hosts.hosts[static_cast<std::size_t>(b)].name;
}

// Phase 2: every host pings all others at once; fills rtt and loss of every pair.
void ping_phase(const HostsFile& hosts, const ProbeOptions& o, std::vector<ProbePair>& pairs) {
  const int n = static_cast<int>(hosts.hosts.size());
  const auto errors = run_parallel(hosts.hosts.size(), [&](std::size_t s) {
    std::vector<std::string> dsts;
    for (int d = 0; d < n; ++d)
      if (d != static_cast<int>(s))
        dsts.push_back(hosts.hosts[static_cast<std::size_t>(d)].data_address);
    const auto r = tethered_run(hosts.hosts[s], ping_all_command(dsts, o.pings),
                                0.2 * o.pings + 30 + o.ssh.connect_timeout_s, o.ssh);
    std::string failed;
    for (auto& p : pairs) {
      if (p.src != static_cast<int>(s)) continue;
      const std::string& addr = hosts.hosts[static_cast<std::size_t>(p.dst)].data_address;
      const std::string what = lines_of(r.out, addr);
      PingSummary sum;
      try {
        sum = parse_ping_summary(what);
      } catch (const Error& e) {
        failed += fmt::format("{}{}: ping {}: {}: {}", failed.empty() ? "" : "\n",
                              pair_name(hosts, p.src, p.dst), addr, e.what(), last_line(what));
        continue;
      }
      if (!sum.min_ms) {
        failed += fmt::format(
            "{}{}: no reply to {} pings of {} (expected ICMP echo allowed between the hosts' data "
            "addresses)",
            failed.empty() ? "" : "\n", pair_name(hosts, p.src, p.dst), sum.sent, addr);
        continue;
      }
      p.pings_sent = sum.sent;
      p.pings_received = sum.received;
      p.loss_pct = sum.loss_pct;
      p.rtt_min_ms = *sum.min_ms;
      p.rtt_avg_ms = *sum.avg_ms;
    }
    if (!failed.empty()) throw Error(failed);
  });
  if (!errors.empty()) throw_all(errors);
}

// Phase 3 for one pair: a server on the destination, the client's two tests on the source.
void throughput(const HostsFile& hosts, const ProbeOptions& o, ProbePair& p) {
  const HostSpec& src = hosts.hosts[static_cast<std::size_t>(p.src)];
  const HostSpec& dst = hosts.hosts[static_cast<std::size_t>(p.dst)];
  const int limit = 2 * (o.seconds + 1) + 90;  // the server's own bound, should the tether fail
  auto server = ssh_start(dst, iperf_server_command(dst.data_address, o.port, limit),
                          process::Stream::null(), process::Stream::pipe(), o.ssh);
  const int tether = server.take_fd(0);
  const auto server_said = [&] {
    ::close(tether);  // the tether: the server is killed on the host
    if (!server.wait_for(10)) server.stop(1.0);
    const int err = server.take_fd(2);
    const std::string text = last_line(read_all(err));
    ::close(err);
    return text.empty() ? std::string()
                        : fmt::format(" (the server on {} said: {})", dst.name, text);
  };
  RemoteResult r;
  try {
    r = tethered_run(src, iperf_client_command(dst.data_address, o.port, o.seconds, o.flows),
                     limit + 30, o.ssh);
  } catch (const Error& e) {
    const std::string why = server_said();
    throw Error(fmt::format("{}: iperf3: {}{}", pair_name(hosts, p.src, p.dst), e.what(), why));
  }
  try {
    const auto [one, many] = split_iperf_runs(r.out);
    p.one_flow_mbps = iperf_received_mbps(one);
    p.n_flow_mbps = iperf_received_mbps(many);
  } catch (const Error& e) {
    const std::string why = server_said();
    throw Error(fmt::format("{}: iperf3 to {}: {}{}", pair_name(hosts, p.src, p.dst),
                            dst.data_address, e.what(), why));
  }
  server_said();
}

}  // namespace

std::vector<std::string> probe_check(const HostsFile& hosts, const ProbeOptions& o) {
  std::string script = "for t in";
  for (const auto& t : kTools) script += std::string(" ") + t.name;
  script +=
      "; do command -v \"$t\" >/dev/null 2>&1 || echo \"lack $t\"; done; echo probe-check-done";
  std::vector<std::vector<std::string>> found(hosts.hosts.size());
  run_parallel(hosts.hosts.size(), [&](std::size_t i) {
    const HostSpec& h = hosts.hosts[i];
    const std::string where = fmt::format("{}:{}: ", hosts.path, h.line);
    try {
      const auto r = ssh_run(h, shell_command({"sh", "-c", script}),
                             {"", o.ssh.connect_timeout_s + 20}, o.ssh);
      if (r.out.find("probe-check-done") == std::string::npos)
        found[i].push_back(where + host_label(h) +
                           fmt::format(": the check printed nothing (exit {}): {} (expected a "
                                       "POSIX sh as the login's shell)",
                                       r.status, last_line(r.err)));
      for (const auto& t : kTools)
        if (r.out.find(std::string("lack ") + t.name + "\n") != std::string::npos)
          found[i].push_back(where + host_label(h) +
                             fmt::format(": no {} in PATH (expected {})", t.name, t.expected));
    } catch (const Error& e) {
      found[i].push_back(
          where + e.what() +
          " (expected the host reachable over ssh with a key: ssh -o BatchMode=yes)");
    }
  });
  std::vector<std::string> problems;
  for (auto& f : found) problems.insert(problems.end(), f.begin(), f.end());
  return problems;
}

std::vector<ProbePair> probe_hosts(const HostsFile& hosts, const ProbeOptions& o,
                                   const ProbeSay& say) {
  const int n = static_cast<int>(hosts.hosts.size());
  std::vector<ProbePair> pairs;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) pairs.push_back({a, b});
  const auto index = [n](int a, int b) {
    return static_cast<std::size_t>(a * (n - 1) + (b < a ? b : b - 1));
  };

  say(fmt::format("ping: every host pings the {} other{} at once, {} pings each, 0.2 s apart",
                  n - 1, n == 2 ? "" : "s", o.pings));
  ping_phase(hosts, o, pairs);

  const auto rounds = probe_rounds(n);
  std::mutex say_mutex;
  int done = 0;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    const auto& round = rounds[r];
    say(fmt::format("iperf3 round {}/{}: {} pair{} at once, one flow then {} flows, {} s each",
                    r + 1, rounds.size(), round.size(), round.size() == 1 ? "" : "s", o.flows,
                    o.seconds));
    const auto errors = run_parallel(round.size(), [&](std::size_t k) {
      ProbePair& p = pairs[index(round[k].first, round[k].second)];
      throughput(hosts, o, p);
      std::lock_guard<std::mutex> lock(say_mutex);
      say(fmt::format("[{}/{}] {}", ++done, pairs.size(), format_pair(hosts, p, o.flows)));
    });
    if (!errors.empty()) throw_all(errors);
  }
  return pairs;
}

std::string format_pair(const HostsFile& hosts, const ProbePair& p, int flows) {
  return fmt::format(
      "{}: rtt min {:.2f} ms avg {:.2f} ms, loss {:.3g} %, 1 flow {:.1f} Mbit/s, {} flows {:.1f} "
      "Mbit/s",
      pair_name(hosts, p.src, p.dst), p.rtt_min_ms, p.rtt_avg_ms, p.loss_pct, p.one_flow_mbps,
      flows, p.n_flow_mbps);
}

}  // namespace geotrain::real
