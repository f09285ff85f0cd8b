#include "real/probe_report.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "sim/common/error.hpp"

namespace geotrain::real {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() > tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

const ProbePair* find(const std::vector<ProbePair>& pairs, int a, int b) {
  for (const auto& p : pairs)
    if (p.src == a && p.dst == b) return &p;
  return nullptr;
}

// One matrix row per host: `cell(pair)` off the diagonal, '-' on it and where no pair was measured.
template <typename Cell>
std::string matrix_rows(const std::vector<ProbePair>& pairs, int n,
                        const std::vector<std::string>& names, Cell cell) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    s += "      - [";
    for (int j = 0; j < n; ++j) {
      const ProbePair* p = i == j ? nullptr : find(pairs, i, j);
      s += fmt::format("{}{}", j ? ", " : "", p ? cell(*p) : std::string("-"));
    }
    s += "]   # " + names[static_cast<std::size_t>(i)] + "\n";
  }
  return s;
}

}  // namespace

ProbeOutputs probe_outputs(const std::string& out) {
  std::string stem;
  if (ends_with(out, ".yaml"))
    stem = out.substr(0, out.size() - 5);
  else if (ends_with(out, ".yml"))
    stem = out.substr(0, out.size() - 4);
  else
    throw InputError(
        fmt::format("--out {}: not a .yaml file name (expected e.g. --out network.yaml; the report "
                    "goes beside it as network.csv and network.png)",
                    out));
  if (!stem.empty() && stem.back() == '/')
    throw InputError(fmt::format(
        "--out {}: no file name before the extension (expected e.g. network.yaml)", out));
  return {out, stem + ".csv", stem + ".png"};
}

std::vector<std::string> output_problems(const ProbeOutputs& o, bool force) {
  std::vector<std::string> problems;
  for (const auto* path : {&o.yaml, &o.csv, &o.png}) {
    std::error_code ec;
    const fs::path p(*path);
    const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    if (!fs::is_directory(dir, ec)) {
      problems.push_back(
          fmt::format("--out {}: folder {} does not exist (expected an existing folder)", o.yaml,
                      dir.string()));
      break;
    }
    if (::access(dir.c_str(), W_OK) != 0) {
      problems.push_back(fmt::format("--out {}: folder {} is not writable: {}", o.yaml,
                                     dir.string(), std::strerror(errno)));
      break;
    }
    if (fs::exists(fs::symlink_status(p, ec)) && !force)
      problems.push_back(
          fmt::format("--out {}: {} exists (expected a new file name, or --force to replace it)",
                      o.yaml, *path));
    else if (fs::is_directory(p, ec))
      problems.push_back(
          fmt::format("--out {}: {} is a folder (expected a file name)", o.yaml, *path));
  }
  return problems;
}

std::string probe_network_yaml(const HostsFile& hosts, const std::vector<ProbePair>& pairs,
                               const ProbeOptions& o) {
  const int n = static_cast<int>(hosts.hosts.size());
  std::vector<std::string> names;
  std::string order, groups;
  for (int i = 0; i < n; ++i) {
    const auto& h = hosts.hosts[static_cast<std::size_t>(i)];
    names.push_back(h.name);
    order += fmt::format("{}{} = {} ({})", i ? ", " : "", i, h.name, h.data_address);
  }
  std::string s = fmt::format(
      "# geotrain real probe of {}: {} hosts, {} ordered pairs measured (docs/real.md, \"probe\")\n"
      "# rows and columns = devices 0 ... {}, one per host in the hosts file's order: {}\n"
      "# delay: minimum ping round trip / 2 ({} pings); bandwidth: iperf3 TCP goodput at the "
      "receiver with {} parallel "
      "flows, {} s after 1 s omitted\n"
      "# a scenario using it needs {} devices (devices: {{count: {}}} or one group per host) and "
      "this network section;\n"
      "# the report (RTT min/avg, loss, one-flow and {}-flow goodput per pair) is the CSV beside "
      "this file\n",
      hosts.path, n, pairs.size(), n - 1, order, o.pings, o.flows, o.seconds, n, n, o.flows);
  for (const auto& p : pairs)
    if (p.loss_pct > 0)
      s += fmt::format(
          "# warning: {} -> {} lost {:.3g} % of {} pings (a scenario has no loss; the matrix "
          "leaves it out)\n",
          names[static_cast<std::size_t>(p.src)], names[static_cast<std::size_t>(p.dst)],
          p.loss_pct, p.pings_sent);
  s += "network:\n  matrix:\n    symmetric: false\n    delay:\n";
  s += matrix_rows(pairs, n, names,
                   [](const ProbePair& p) { return fmt::format("{:.3f}ms", p.rtt_min_ms / 2); });
  s += "    bandwidth:\n";
  s += matrix_rows(pairs, n, names, [](const ProbePair& p) {
    return fmt::format("{:.3f}Mbps", std::max(p.n_flow_mbps, 0.001));
  });
  return s;
}

std::string probe_csv(const HostsFile& hosts, const std::vector<ProbePair>& pairs,
                      const ProbeOptions& o) {
  std::string s =
      "src,dst,src_address,dst_address,rtt_min_ms,rtt_avg_ms,one_way_delay_ms,loss_pct,pings_sent,"
      "pings_received,"
      "one_flow_mbps,n_flow_mbps,flows,seconds\n";
  for (const auto& p : pairs) {
    const auto& a = hosts.hosts[static_cast<std::size_t>(p.src)];
    const auto& b = hosts.hosts[static_cast<std::size_t>(p.dst)];
    s += fmt::format("{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{},{},{:.3f},{:.3f},{},{}\n", a.name,
                     b.name, a.data_address, b.data_address, p.rtt_min_ms, p.rtt_avg_ms,
                     p.rtt_min_ms / 2, p.loss_pct, p.pings_sent, p.pings_received, p.one_flow_mbps,
                     p.n_flow_mbps, o.flows, o.seconds);
  }
  return s;
}

void write_file_atomically(const std::string& path, const std::string& text, bool force) {
  const fs::path p(path);
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::string tmp = (dir / ("." + p.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0)
    throw Error(fmt::format("{}: cannot create a temporary file in {}: {}", path, dir.string(),
                            std::strerror(errno)));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  const bool ok = done == text.size() && ::fchmod(fd, 0644) == 0 && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    throw Error(fmt::format("{}: cannot write: {}", path, std::strerror(saved)));
  }
  const int placed =
      force ? ::rename(tmp.c_str(), path.c_str()) : ::link(tmp.c_str(), path.c_str());
  const int why = errno;
  if (placed != 0 || !force) ::unlink(tmp.c_str());
  if (placed != 0)
    throw Error(
        why == EEXIST
            ? fmt::format("{}: appeared while the probe ran (expected a new file name, or --force)",
                          path)
            : fmt::format("{}: cannot write: {}", path, std::strerror(why)));
}

}  // namespace geotrain::real
