#include "real/link_measure.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "real/shell_quote.hpp"
#include "sim/common/error.hpp"

namespace geotrain::real {

double PairMeasure::delay_error_pct() const {
  return configured_delay_ms > 0 ? 100.0 * (measured_delay_ms - configured_delay_ms) / configured_delay_ms : 0;
}

double PairMeasure::bandwidth_error_pct() const {
  return configured_mbps > 0 ? 100.0 * (measured_mbps - configured_mbps) / configured_mbps : 0;
}

double ping_min_rtt_ms(const std::string& out) {
  const auto at = out.find(" = ", out.find("min/avg/max"));
  double min = 0;
  if (out.find("min/avg/max") == std::string::npos || at == std::string::npos ||
      std::sscanf(out.c_str() + at + 3, "%lf", &min) != 1)
    throw Error("no round-trip summary in ping's output (every packet lost?)");
  return min;
}

double iperf_received_mbps(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    if (j.contains("error")) throw Error("iperf3: " + j["error"].get<std::string>());
    return j.at("end").at("sum_received").at("bits_per_second").get<double>() / 1e6;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("iperf3's JSON: ") + e.what());
  }
}

std::vector<PairMeasure> measure_links(const HostsFile& hosts, const HostNetwork& net, const MeasureOptions& o) {
  std::vector<PairMeasure> out;
  const int n = static_cast<int>(hosts.hosts.size());
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      const HostSpec& src = hosts.hosts[static_cast<std::size_t>(a)];
      const HostSpec& dst = hosts.hosts[static_cast<std::size_t>(b)];
      PairMeasure m;
      m.src = a;
      m.dst = b;
      m.configured_delay_ms = 1e3 * (net.link(a, b).delay_s + net.link(b, a).delay_s) / 2;
      m.configured_mbps = net.link(a, b).bandwidth_Bps * 8 / 1e6;

      const auto ping = ssh_run_checked(
          src, shell_command({"ping", "-n", "-q", "-c", std::to_string(o.pings), "-i", "0.2", "-W", "5", dst.data_address}),
          "ping " + dst.data_address, {"", 30}, o.ssh);
      try {
        m.measured_delay_ms = ping_min_rtt_ms(ping.out) / 2;
      } catch (const Error& e) {
        throw HostError(src, fmt::format("ping {}: {}", dst.data_address, e.what()));
      }

      // The server: one test, then it exits; `timeout` ends it if no client ever comes.
      const int limit = o.iperf_seconds + 60;
      auto server = ssh_start(dst,
                              fmt::format("exec timeout {} iperf3 -s -1 -p {} -B {}", limit, o.iperf_port,
                                          shell_quote(dst.data_address)),
                              process::Stream::null(), process::Stream::null(), o.ssh);
      // The client retries while the server comes up (connection refused: its ssh may still be
      // logging in on a loaded machine) for up to 30 s. iperf3 -J may exit 0 with an "error" key.
      const std::string client = fmt::format(
          "i=0; while :; do out=$(iperf3 -c {0} -p {1} -t {2} -O 1 -J 2>&1) && "
          "! printf '%s' \"$out\" | grep -q '\"error\"' && break; i=$((i+1)); "
          "[ $i -lt 150 ] || {{ echo \"$out\"; exit 1; }}; sleep 0.2; done; echo \"$out\"",
          shell_quote(dst.data_address), o.iperf_port, o.iperf_seconds);
      const auto r = ssh_run(src, client, {"", static_cast<double>(limit + 15)}, o.ssh);
      try {
        m.measured_mbps = iperf_received_mbps(r.out);
      } catch (const Error& e) {
        const auto code = server.try_wait();
        server.stop(1.0);
        throw HostError(src, fmt::format("iperf3 to {}: {}{}", dst.data_address, e.what(),
                                         code ? fmt::format(" (the server's ssh to {} ended with status {})", dst.name, *code)
                                              : std::string()));
      }
      if (!server.wait_for(10)) server.stop(1.0);
      out.push_back(m);
    }
  return out;
}

std::string format_measures(const HostsFile& hosts, const std::vector<PairMeasure>& ms) {
  std::string s = fmt::format("{:<28} {:>10} {:>10} {:>7}   {:>10} {:>10} {:>7}\n", "# link", "delay ms",
                              "measured", "error", "Mbit/s", "measured", "error");
  for (const auto& m : ms)
    s += fmt::format("{:<28} {:>10.2f} {:>10.2f} {:>6.1f}%   {:>10.2f} {:>10.2f} {:>6.1f}%\n",
                     hosts.hosts[static_cast<std::size_t>(m.src)].name + " -> " +
                         hosts.hosts[static_cast<std::size_t>(m.dst)].name,
                     m.configured_delay_ms, m.measured_delay_ms, m.delay_error_pct(), m.configured_mbps,
                     m.measured_mbps, m.bandwidth_error_pct());
  return s;
}

nlohmann::json measures_json(const HostsFile& hosts, const std::vector<PairMeasure>& ms) {
  nlohmann::json links = nlohmann::json::array();
  for (const auto& m : ms)
    links.push_back({{"src", hosts.hosts[static_cast<std::size_t>(m.src)].name},
                     {"dst", hosts.hosts[static_cast<std::size_t>(m.dst)].name},
                     {"delay_ms", {{"configured", m.configured_delay_ms}, {"measured", m.measured_delay_ms},
                                   {"error_pct", m.delay_error_pct()}}},
                     {"bandwidth_mbps", {{"configured", m.configured_mbps}, {"measured", m.measured_mbps},
                                         {"error_pct", m.bandwidth_error_pct()}}}});
  return {{"delay_method", "ping minimum round trip / 2"},
          {"bandwidth_method", "iperf3 TCP receiver goodput, first second omitted"},
          {"links", links}};
}

}  // namespace geotrain::real
