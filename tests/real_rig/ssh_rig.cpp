#include "tests/real_rig/ssh_rig.hpp"

#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "emu/net/netns_util.hpp"
#include "sim/process/run.hpp"

namespace geotrain::test {

namespace fs = std::filesystem;

namespace {

constexpr const char* kSubnet = "10.199.0.";
constexpr const char* kControllerAddress = "10.199.0.254";

std::string find_program(const std::vector<std::string>& candidates) {
  for (const auto& path : candidates)
    if (access(path.c_str(), X_OK) == 0) return path;
  return "";
}

// sshd re-executes itself, so it must be started by its absolute path.
std::string sshd_path() { return find_program({"/usr/sbin/sshd", "/usr/bin/sshd", "/sbin/sshd"}); }

void run_checked(const std::vector<std::string>& argv) {
  process::ChildSpec spec;
  spec.argv = argv;
  spec.search_path = true;
  process::RunOptions o;
  o.timeout_s = 30;
  process::run_checked(spec, o);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a SIGINT/SIGTERM handler may still delete: fixed buffers, filled before the signal can
// come, read with system calls only (umount2 + unlink = `ip netns del`; kill of the sshds).
constexpr int kMaxRigs = 8, kMaxNetns = 20;
struct SignalRecord {
  volatile sig_atomic_t used = 0;
  char netns[kMaxNetns][64] = {};
  int count = 0;
  pid_t sshd[kMaxNetns] = {};
};
SignalRecord g_records[kMaxRigs];
bool g_handler_installed = false;

void on_fatal_signal(int sig) {
  for (auto& r : g_records) {
    if (!r.used) continue;
    for (int i = 0; i < kMaxNetns; ++i)
      if (r.sshd[i] > 0) kill(r.sshd[i], SIGKILL);
    for (int i = 0; i < r.count; ++i) {
      char path[96] = "/run/netns/";
      std::strncat(path, r.netns[i], sizeof(path) - std::strlen(path) - 1);
      umount2(path, MNT_DETACH);
      unlink(path);
    }
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

SignalRecord* claim_record() {
  if (!g_handler_installed) {
    struct sigaction sa{};
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    g_handler_installed = true;
  }
  for (auto& r : g_records)
    if (!r.used) {
      r.count = 0;
      for (auto& p : r.sshd) p = 0;
      r.used = 1;
      return &r;
    }
  return nullptr;
}

SignalRecord* record_of(const std::string& bridge) {
  for (auto& r : g_records)
    if (r.used && r.count > 0 && bridge == r.netns[0]) return &r;
  return nullptr;
}

int g_rig_serial = 0;

}  // namespace

std::string rig_unavailable() {
  if (geteuid() != 0) return "the ssh rig needs root (network namespaces, sshd)";
  if (sshd_path().empty()) return "no sshd (install openssh-server)";
  if (find_program({"/usr/bin/ssh", "/bin/ssh"}).empty()) return "no ssh client (install openssh-client)";
  if (find_program({"/usr/bin/ssh-keygen", "/bin/ssh-keygen"}).empty()) return "no ssh-keygen (install openssh-client)";
  if (find_program({"/usr/sbin/ip", "/usr/bin/ip", "/sbin/ip", "/bin/ip"}).empty()) return "no ip tool (iproute2)";
  return "";
}

SshRig::SshRig(std::vector<RigHost> hosts, const std::string& build_dir) : hosts_(std::move(hosts)) {
  if (hosts_.empty() || hosts_.size() > 16) throw std::invalid_argument("SshRig: 1 to 16 hosts");
  std::string tmpl = "/tmp/gtrig-" + std::to_string(getpid()) + "-XXXXXX";
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("SshRig: mkdtemp: " + std::string(std::strerror(errno)));
  dir_ = tmpl;
  const std::string prefix = "gtr" + std::to_string(getpid()) + "n" + std::to_string(g_rig_serial++);
  bridge_ = prefix + "-br";
  controller_ = prefix + "-c";
  for (std::size_t i = 0; i < hosts_.size(); ++i) netns_.push_back(prefix + "-h" + std::to_string(i));
  if (SignalRecord* r = claim_record()) {
    auto add = [r](const std::string& name) { std::snprintf(r->netns[r->count++], 64, "%s", name.c_str()); };
    add(bridge_);
    add(controller_);
    for (const auto& n : netns_) add(n);
  }
  try {
    build();
    write_hosts_file(build_dir);
  } catch (...) {
    teardown();
    throw;
  }
}

SshRig::~SshRig() { teardown(); }

std::string SshRig::address(std::size_t i) const { return kSubnet + std::to_string(i + 1); }

std::string SshRig::workdir(std::size_t i) const { return dir_ + "/work/" + hosts_[i].name; }

std::vector<std::string> SshRig::ssh_options() const {
  return {"-i", key_, "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
          "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"};
}

std::vector<std::string> SshRig::controller_argv(const std::vector<std::string>& argv) const {
  std::vector<std::string> out{"ip", "netns", "exec", controller_};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::string SshRig::controller_shell(const std::string& command_line) const {
  return "ip netns exec " + controller_ + " " + command_line;
}

void SshRig::build() {
  const auto veth = [this](const std::string& ns, const std::string& port, const std::string& addr) {
    run_checked({"ip", "netns", "add", ns});
    run_checked({"ip", "-n", bridge_, "link", "add", "name", port, "type", "veth", "peer", "name", "eth0", "netns", ns});
    run_checked({"ip", "-n", bridge_, "link", "set", port, "master", "gtbr", "up"});
    run_checked({"ip", "-n", ns, "addr", "add", addr + "/24", "dev", "eth0"});
    run_checked({"ip", "-n", ns, "link", "set", "eth0", "up"});
    run_checked({"ip", "-n", ns, "link", "set", "lo", "up"});
  };
  run_checked({"ip", "netns", "add", bridge_});
  run_checked({"ip", "-n", bridge_, "link", "add", "name", "gtbr", "type", "bridge"});
  run_checked({"ip", "-n", bridge_, "link", "set", "gtbr", "up"});
  veth(controller_, "c", kControllerAddress);
  for (std::size_t i = 0; i < hosts_.size(); ++i) veth(netns_[i], "h" + std::to_string(i), address(i));

  key_ = dir_ + "/client_key";
  run_checked({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "geotrain-rig", "-f", key_});
  // sshd's privilege separation directory; created once, never removed (a system sshd uses it too).
  fs::create_directories("/run/sshd");
  for (std::size_t i = 0; i < hosts_.size(); ++i) start_sshd(i);
  for (std::size_t i = 0; i < hosts_.size(); ++i) wait_sshd(i);
}

void SshRig::start_sshd(std::size_t i) {
  const std::string n = std::to_string(i);
  const std::string host_key = dir_ + "/host" + n + "_key", config = dir_ + "/sshd" + n + ".conf";
  run_checked({"ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "geotrain-rig-host", "-f", host_key});
  std::ofstream c(config);
  c << "ListenAddress " << address(i) << "\n"
    << "HostKey " << host_key << "\n"
    << "PidFile " << dir_ << "/sshd" << n << ".pid\n"
    << "AuthorizedKeysFile " << key_ << ".pub\n"
    << "PermitRootLogin prohibit-password\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
    << "UsePAM no\nStrictModes no\nUseDNS no\nMaxStartups 100\nMaxSessions 100\n";
  c.close();
  process::ChildSpec spec;
  spec.argv = {sshd_path(), "-D", "-f", config, "-E", dir_ + "/sshd" + n + ".log"};
  spec.netns = netns_[i];
  spec.group = process::Group::own_group;
  spec.die_with_parent = true;  // a kill -9 of the test takes the sshds along
  spec.in = process::Stream::null();
  spec.out = spec.err = process::Stream::file(dir_ + "/sshd" + n + ".out", true);
  sshd_.push_back(process::ChildProcess::start(spec));
  if (SignalRecord* r = record_of(bridge_)) r->sshd[i] = sshd_.back().pid();
}

void SshRig::wait_sshd(std::size_t i) {
  const std::string log = dir_ + "/sshd" + std::to_string(i) + ".log";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (slurp(log).find("Server listening") != std::string::npos) return;
    if (auto code = sshd_[i].try_wait())
      throw std::runtime_error("SshRig: sshd of " + hosts_[i].name + " exited (" + std::to_string(*code) +
                               "): " + slurp(log) + slurp(dir_ + "/sshd" + std::to_string(i) + ".out"));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  throw std::runtime_error("SshRig: sshd of " + hosts_[i].name + " not listening after 10 s: " + slurp(log));
}

void SshRig::write_hosts_file(const std::string& build_dir) {
  hosts_file_ = dir_ + "/hosts.yaml";
  std::ofstream f(hosts_file_);
  f << "# written by the ssh test rig (tests/real_rig): namespaces " << bridge_ << " ...\nhosts:\n";
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    f << "  - name: " << hosts_[i].name << "\n"
      << "    address: root@" << address(i) << "\n"
      << "    interface: eth0\n";
    if (hosts_[i].region.empty()) f << "    ranks: 1\n";
    else f << "    region: " << hosts_[i].region << "\n";
    f << "    workdir: " << workdir(i) << "\n"
      << "    worker: " << build_dir << "/geotrain-worker\n"
      << "    delayer: " << build_dir << "/geotrain-delayer\n"
      << "    ssh_options: [";
    const auto opts = ssh_options();
    for (std::size_t k = 0; k < opts.size(); ++k) f << (k ? ", " : "") << '"' << opts[k] << '"';
    f << "]\n";
  }
}

void SshRig::stop_sshd(std::size_t i) {
  if (i < sshd_.size() && sshd_[i].running()) sshd_[i].stop(2.0);
}

void SshRig::teardown() noexcept {
  try {
    std::vector<process::ChildProcess*> running;
    for (auto& s : sshd_)
      if (s.running()) running.push_back(&s);
    process::ChildProcess::stop_all(running, 2.0);
    std::vector<std::string> all = netns_;
    all.push_back(controller_);
    all.push_back(bridge_);
    // Whatever the tests left running on a "host" (delayers, iperf3, workers): by namespace.
    emu::stop_processes(emu::processes_of(all, ""), 1.0);
    for (const auto& ns : all)
      if (emu::namespace_exists(ns)) {
        process::ChildSpec spec;
        spec.argv = {"ip", "netns", "del", ns};
        spec.search_path = true;
        process::RunOptions o;
        o.timeout_s = 10;
        process::run(spec, o);
      }
    if (SignalRecord* r = record_of(bridge_)) r->used = 0;
    if (!dir_.empty()) {
      std::error_code ec;
      fs::remove_all(dir_, ec);
    }
  } catch (...) {
    // A destructor must not throw; what is left shows in `ip netns list` as gtr<pid>...
  }
}

}  // namespace geotrain::test
