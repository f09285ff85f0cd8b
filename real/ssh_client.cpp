#include "real/ssh_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/process/run.hpp"

namespace geotrain::real {

namespace {

process::ChildSpec ssh_spec(const HostSpec& host, const std::string& remote_command, const SshOptions& options) {
  process::ChildSpec spec;
  spec.argv = ssh_argv(host, remote_command, options);
  spec.search_path = true;
  spec.netns = options.netns;
  spec.group = process::Group::own_group;  // a timeout kills ssh and nothing of ours
  spec.die_with_parent = true;
  spec.report_setup_errors = true;
  return spec;
}

}  // namespace

HostError::HostError(const HostSpec& host, const std::string& what)
    : Error(host_label(host) + ": " + what), host_name_(host.name) {}

std::string host_label(const HostSpec& host) {
  return fmt::format("host {} ({})", host.name, host.address.to_string());
}

std::string last_line(const std::string& text) {
  std::size_t end = text.size();
  while (end > 0) {
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' || text[end - 1] == ' ')) --end;
    const std::size_t begin = text.rfind('\n', end == 0 ? 0 : end - 1);
    const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
    if (end > from) return text.substr(from, end - from);
    if (begin == std::string::npos) break;
    end = begin;
  }
  return "";
}

std::vector<std::string> ssh_argv(const HostSpec& host, const std::string& remote_command,
                                  const SshOptions& options) {
  const long timeout = std::max(1L, std::lround(std::ceil(options.connect_timeout_s)));
  std::vector<std::string> argv{options.ssh, "-o", "BatchMode=yes", "-o", fmt::format("ConnectTimeout={}", timeout)};
  if (host.address.port_given || host.address.port != 22) {
    argv.push_back("-p");
    argv.push_back(std::to_string(host.address.port));
  }
  argv.insert(argv.end(), host.ssh_options.begin(), host.ssh_options.end());
  argv.push_back(host.address.user.empty() ? host.address.host : host.address.user + "@" + host.address.host);
  // ssh reads options after the destination too: "--" keeps the command from being one.
  argv.push_back("--");
  argv.push_back(remote_command);
  return argv;
}

RemoteResult ssh_run(const HostSpec& host, const std::string& remote_command, const RemoteRun& run,
                     const SshOptions& options) {
  process::RunOptions o;
  o.stdin_text = run.stdin_text;
  o.timeout_s = run.timeout_s;
  process::RunResult r;
  try {
    r = process::run(ssh_spec(host, remote_command, options), o);
  } catch (const TimeoutError&) {
    throw HostError(host, fmt::format("timed out after {:g} s: {}", run.timeout_s, remote_command));
  } catch (const SystemError& e) {
    throw HostError(host, fmt::format("cannot run {}: {}", options.ssh, e.what()));
  }
  if (r.status == process::kExitCannotExec)
    throw HostError(host, fmt::format("cannot run {}: {}", options.ssh, last_line(r.err)));
  if (r.status == kSshFailedStatus) {
    const std::string why = last_line(r.err);
    throw HostError(host, "ssh failed: " + (why.empty() ? std::string("exit status 255, no message") : why));
  }
  return {r.status, std::move(r.out), std::move(r.err)};
}

RemoteResult ssh_run_checked(const HostSpec& host, const std::string& remote_command, const std::string& what,
                             const RemoteRun& run, const SshOptions& options) {
  RemoteResult r = ssh_run(host, remote_command, run, options);
  if (r.status != 0) {
    const std::string why = last_line(r.err);
    throw HostError(host, fmt::format("{} failed (exit {}){}{}", what, r.status, why.empty() ? "" : ": ", why));
  }
  return r;
}

process::ChildProcess ssh_start(const HostSpec& host, const std::string& remote_command, process::Stream out,
                                process::Stream err, const SshOptions& options) {
  process::ChildSpec spec = ssh_spec(host, remote_command, options);
  spec.in = process::Stream::pipe();
  spec.out = std::move(out);
  spec.err = std::move(err);
  return process::ChildProcess::start(spec);
}

}  // namespace geotrain::real
