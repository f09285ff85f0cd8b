#include "real/hosts_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "real/host_ranks.hpp"
#include "sim/common/error.hpp"
#include "sim/common/text_rules.hpp"
#include "sim/scenario/text_check.hpp"
#include "sim/scenario/yaml_section.hpp"

namespace geotrain::real {

namespace {

constexpr const char* kPathExpected =
    "expected a path of /-separated names of A-Z a-z 0-9 . _ -, none starting with '.' or '-'";

std::string read_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec) || fs::is_character_file(path, ec) || fs::is_block_file(path, ec))
    throw ScenarioError(fmt::format("{}: not a regular file (expected a hosts YAML file)", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(fmt::format("{}: cannot open hosts file: {}", path, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Linux interface names: at most 15 characters (IFNAMSIZ - 1).
std::optional<std::string> interface_problem(const std::string& name) {
  const std::string expected = "expected 1 to 15 characters of A-Z a-z 0-9 . _ -, not starting with '.' or '-'";
  if (name.empty() || name.size() > 15) return fmt::format("{} characters ({})", name.size(), expected);
  if (identifier_problem(name) || name.front() == '-') return "not an interface name (" + expected + ")";
  return std::nullopt;
}

RankRequest read_ranks(YamlSection& h, const Scenario& s, int rank_count) {
  RankRequest q;
  h.raw("ranks"), h.raw("region");  // both known keys, whichever is given
  const bool has_ranks = h.has("ranks"), has_region = h.has("region");
  if (has_ranks && has_region) {
    h.diag().error(h.line_of("region"), h.key_path("region"),
                   "given together with ranks (expected either ranks: N, ranks: [a, b] or region: NAME)");
    return q;
  }
  if (!has_ranks && !has_region) {
    h.diag().error(h.line(), h.key_path("ranks"),
                   "missing (expected ranks: N, ranks: [a, b] or region: NAME of the scenario)");
    return q;
  }
  if (has_region) {
    q.kind = RankRequest::Kind::region;
    q.key_path = h.key_path("region"), q.line = h.line_of("region");
    const auto& names = s.network.region_names();
    auto region = h.choice("region", names, "region");
    if (!region) return q;
    q.text = *region;
    for (int d = 0; d < rank_count; ++d)
      if (s.network.region_name(s.network.region_of(d)) == *region) q.ranks.push_back(d);
    q.valid = true;
    return q;
  }
  q.key_path = h.key_path("ranks"), q.line = h.line_of("ranks");
  const YAML::Node node = h.raw("ranks");
  const std::string expected = fmt::format("expected a count 1 ... {} or a list of ranks 0 ... {}", rank_count, rank_count - 1);
  if (node.IsScalar()) {
    q.kind = RankRequest::Kind::count;
    q.text = node.Scalar();
    if (auto count = h.integer("ranks", 1, rank_count)) q.count = static_cast<int>(*count), q.valid = true;
    return q;
  }
  if (!node.IsSequence() || node.size() == 0) {
    h.diag().error(q.line, q.key_path, (node.IsSequence() ? "an empty list (" : "not a count or a list (") + expected + ")");
    return q;
  }
  q.kind = RankRequest::Kind::list;
  q.valid = true;
  for (const auto& item : node) {
    const std::string text = scalar_text(item);
    int r = -1;
    try {
      r = item.IsScalar() ? item.as<int>() : -1;
    } catch (const YAML::Exception&) {
      r = -1;
    }
    if (r < 0 || r >= rank_count || text.find_first_not_of("0123456789") != std::string::npos) {
      h.diag().error(line_of(item), q.key_path, text.empty() ? "(not a value)" : printable(text),
                     fmt::format("not a rank of the scenario (expected 0 ... {})", rank_count - 1));
      q.valid = false;
      continue;
    }
    if (std::find(q.ranks.begin(), q.ranks.end(), r) != q.ranks.end()) {
      h.diag().error(line_of(item), q.key_path, text, "listed twice (expected each rank once)");
      q.valid = false;
      continue;
    }
    q.ranks.push_back(r);
  }
  return q;
}

std::optional<std::string> read_path(YamlSection& h, const std::string& key, bool required) {
  auto text = h.text(key, required);
  if (!text) return std::nullopt;
  if (auto problem = remote_path_problem(*text)) {
    h.diag().error(h.line_of(key), h.key_path(key), *text, *problem);
    return std::nullopt;
  }
  return text;
}

std::vector<std::string> read_ssh_options(YamlSection& h) {
  std::vector<std::string> out;
  const YAML::Node node = h.raw("ssh_options");
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsSequence()) {
    h.diag().error(line_of(node), h.key_path("ssh_options"), "not a list (expected e.g. [-o, ConnectTimeout=10])");
    return out;
  }
  for (const auto& item : node) {
    if (!item.IsScalar() || item.Scalar().empty()) {
      h.diag().error(line_of(item), h.key_path("ssh_options"), "an empty or nested entry (expected one ssh argument each)");
      continue;
    }
    out.push_back(item.Scalar());
  }
  return out;
}

// Reads one entry of `hosts`; fills what is valid, reports the rest.
// probe_only: `real probe` needs only name, address and data_address; interface, workdir and
// worker are checked when given.
HostSpec read_host(YamlSection& h, RankRequest& request, const Scenario* s, int rank_count, bool probe_only) {
  HostSpec host;
  host.line = h.line();
  if (auto name = h.text("name", true)) {
    if (auto problem = identifier_problem(*name)) h.diag().error(h.line_of("name"), h.key_path("name"), *name, *problem);
    else host.name = *name;
  }
  if (auto address = h.text("address", true)) {
    auto parsed = parse_ssh_target(*address);
    if (auto* problem = std::get_if<std::string>(&parsed))
      h.diag().error(h.line_of("address"), h.key_path("address"), *address,
                     *problem);
    else
      host.address = std::get<SshTarget>(parsed);
  }
  if (auto data = h.text("data_address")) {
    if (!is_ipv4(*data))
      h.diag().error(h.line_of("data_address"), h.key_path("data_address"), *data,
                     "not an IPv4 address (expected e.g. 10.0.0.5)");
    else
      host.data_address = *data;
  } else if (!host.address.host.empty()) {
    if (is_ipv4(host.address.host)) host.data_address = host.address.host;
    else
      h.diag().error(h.line_of("address"), h.key_path("address"), host.address.host,
                     "not an IPv4 address, so data_address is needed (expected data_address: the "
                     "IPv4 address the other hosts reach this host's interface at)");
  }
  if (auto iface = h.text("interface", !probe_only)) {
    if (auto problem = interface_problem(*iface)) h.diag().error(h.line_of("interface"), h.key_path("interface"), *iface, *problem);
    else host.interface = *iface;
  }
  if (s != nullptr) request = read_ranks(h, *s, rank_count);
  else h.raw("ranks"), h.raw("region");  // known keys, not judged without a scenario
  if (auto p = read_path(h, "workdir", !probe_only)) host.workdir = *p;
  if (auto p = read_path(h, "worker", !probe_only)) host.worker = *p;
  if (auto p = read_path(h, "delayer", false)) host.delayer = *p;
  else if (!host.worker.empty() && !h.has("delayer")) {
    const auto slash = host.worker.rfind('/');
    host.delayer = (slash == std::string::npos ? "" : host.worker.substr(0, slash + 1)) + "geotrain-delayer";
  }
  host.ssh_options = read_ssh_options(h);
  if (auto device = h.choice("device", {"cpu", "cuda"}, "worker device")) host.device = *device;
  h.finish();
  return host;
}

// Two hosts with one name or one data address: the second is reported, naming the first.
void check_unique(const std::vector<HostSpec>& hosts, const std::vector<int>& name_lines,
                  const std::vector<int>& data_lines, Diagnostics& diag) {
  std::map<std::string, std::size_t> names, data;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const auto& h = hosts[i];
    const std::string where = fmt::format("hosts[{}]", i);
    if (!h.name.empty() && !names.emplace(h.name, i).second)
      diag.error(name_lines[i], where + ".name", h.name,
                 fmt::format("duplicate host name (first at line {}; expected each name once)", hosts[names[h.name]].line));
    if (!h.data_address.empty() && !data.emplace(h.data_address, i).second)
      diag.error(data_lines[i], where + ".data_address", h.data_address,
                 fmt::format("host '{}' (line {}) has this address too (expected one address per host)",
                             hosts[data[h.data_address]].name, hosts[data[h.data_address]].line));
  }
}

// The line of `key` itself (a block list's node starts on the line after it).
int key_line(const YAML::Node& map, const std::string& key) {
  for (const auto& item : map)
    if (scalar_text(item.first) == key) return line_of(item.first);
  return 0;
}

}  // namespace

std::optional<std::string> remote_path_problem(const std::string& path) {
  if (path.empty()) return std::string("empty (") + kPathExpected + ")";
  if (path.size() > 1024) return fmt::format("{} characters is too long ({})", path.size(), kPathExpected);
  std::size_t i = path.front() == '/' ? 1 : 0;
  while (i <= path.size()) {
    const std::size_t slash = std::min(path.find('/', i), path.size());
    const std::string part = path.substr(i, slash - i);
    if (part.empty()) return std::string("has an empty component (") + kPathExpected + ")";
    if (identifier_problem(part) || part.front() == '-')
      return fmt::format("component '{}' is not allowed ({})", printable(part), kPathExpected);
    i = slash + 1;
  }
  return std::nullopt;
}

namespace {

HostsFile parse_hosts_impl(const std::string& text, const std::string& display_name, const Scenario* scenario,
                            bool probe_only = false) {
  Diagnostics diag(display_name);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(fmt::format("{}:{}: malformed YAML: {}", display_name, e.mark.line + 1, printable(e.msg)));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("{}: malformed YAML: {}", display_name, printable(e.msg)));
  }
  if (!root.IsDefined() || root.IsNull())
    throw ScenarioError(fmt::format("{}: the file is empty (expected a hosts file with a `hosts:` list)", display_name));
  check_scenario_text(root, diag);
  diag.throw_if_errors();
  YamlSection top(diag, root, "");
  const YAML::Node list = top.raw("hosts");
  top.finish();
  if (!top.present() || !list.IsSequence() || list.size() == 0) {
    if (top.present() && top.has("hosts"))
      diag.error(key_line(root, "hosts"), "hosts",
                 "not a list of hosts, or empty (expected - {name: ..., address: ..., ...} per host)");
    else if (top.present())
      diag.error(top.line(), "hosts", "missing (expected a list of hosts)");
    diag.throw_if_errors();
  }
  const int rank_count = scenario != nullptr ? static_cast<int>(scenario->devices.size()) : 0;
  HostsFile out;
  out.path = display_name;
  std::vector<RankRequest> requests;
  std::vector<std::string> names;
  std::vector<int> lines, name_lines, data_lines;
  for (std::size_t i = 0; i < list.size(); ++i) {
    YamlSection h(diag, list[i], fmt::format("hosts[{}]", i));
    RankRequest request;
    HostSpec host = h.present() ? read_host(h, request, scenario, rank_count, probe_only) : HostSpec{};
    host.line = h.line();
    name_lines.push_back(h.line_of("name"));
    data_lines.push_back(h.has("data_address") ? h.line_of("data_address") : h.line_of("address"));
    names.push_back(host.name.empty() ? fmt::format("hosts[{}]", i) : host.name);
    lines.push_back(host.line);
    requests.push_back(std::move(request));
    out.hosts.push_back(std::move(host));
  }
  check_unique(out.hosts, name_lines, data_lines, diag);
  if (scenario == nullptr) {
    diag.throw_if_errors();
    return out;
  }
  std::vector<std::vector<int>> ranks_of_host;
  out.host_of_rank = assign_ranks(requests, names, lines, rank_count, key_line(root, "hosts"), diag, ranks_of_host);
  for (std::size_t i = 0; i < out.hosts.size(); ++i) out.hosts[i].ranks = ranks_of_host[i];
  diag.throw_if_errors();
  return out;
}

}  // namespace

HostsFile parse_hosts(const std::string& text, const std::string& display_name, const Scenario& scenario) {
  return parse_hosts_impl(text, display_name, &scenario);
}

HostsFile load_hosts(const std::string& path, const Scenario& scenario) {
  return parse_hosts(read_file(path), path, scenario);
}

HostsFile load_hosts_only(const std::string& path) { return parse_hosts_impl(read_file(path), path, nullptr); }

HostsFile load_hosts_for_probe(const std::string& path) {
  return parse_hosts_impl(read_file(path), path, nullptr, true);
}

}  // namespace geotrain::real
