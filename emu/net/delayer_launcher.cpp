#include "emu/net/delayer_launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>

#include "emu/net/netns_util.hpp"
#include "emu/net/plan.hpp"
#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

std::string tail_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.size() > 400 ? text.substr(text.size() - 400) : text;
}

[[noreturn]] void exec_in_child(const Command& command, const StateStore& store, int ready_fd, pid_t parent) {
  setsid();
  // Until it reports ready the delayer dies with its starter (a kill -9 of geotrain before then
  // must not leave a delayer the guardian's scan missed); the delayer clears this once ready.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(126);
  const int ns = open(("/run/netns/" + command.netns).c_str(), O_RDONLY);
  if (ns < 0 || setns(ns, CLONE_NEWNET) != 0) {
    dprintf(2, "cannot enter namespace %s: %s\n", command.netns.c_str(), std::strerror(errno));
    _exit(126);
  }
  const int log = open(store.delayer_log(command.netns).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int null = open("/dev/null", O_RDONLY);
  if (log >= 0) dup2(log, 1), dup2(log, 2);
  if (null >= 0) dup2(null, 0);
  dup2(ready_fd, 3);
  std::vector<std::string> args = command.args;
  args.insert(args.end(), {"--ready-fd", "3", "--stats", store.delayer_stats(command.netns)});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(argv[0], argv.data());
  dprintf(2, "cannot run %s: %s\n", argv[0], std::strerror(errno));
  _exit(127);
}

}  // namespace

pid_t start_delayer(const Command& command, const StateStore& store, double timeout_s) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) throw SystemError("pipe", errno, std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw SystemError("fork", errno, std::strerror(errno));
  if (pid == 0) exec_in_child(command, store, ready[1], parent);
  close(ready[1]);
  char buf[16] = {};
  pollfd pfd{ready[0], POLLIN, 0};
  const int polled = poll(&pfd, 1, static_cast<int>(timeout_s * 1000));
  const ssize_t n = polled > 0 ? read(ready[0], buf, sizeof buf - 1) : 0;
  close(ready[0]);
  if (n > 0 && std::strncmp(buf, "ready", 5) == 0) return pid;
  stop_processes({pid}, 1.0);
  waitpid(pid, nullptr, WNOHANG);
  throw SystemError(command.to_string(), polled > 0 ? 1 : -1,
                    polled > 0 ? tail_of(store.delayer_log(command.netns))
                               : "no ready signal within " + std::to_string(timeout_s) + " s");
}

std::vector<int> delayer_queues(const Command& command) {
  std::vector<int> out;
  for (std::size_t i = 0; i + 1 < command.args.size(); ++i)
    if (command.args[i] == "--queue") out.push_back(std::stoi(command.args[i + 1]));
  return out;
}

std::string delayer_health(const std::string& netns, pid_t pid, const std::vector<int>& queues) {
  if (!process_alive(pid)) return "delayer process " + std::to_string(pid) + " is gone";
  // Columns: queue number, peer port id, queued packets, copy mode, copy range, queue drops,
  // user drops, last id, 1.
  std::istringstream table(read_file_in(netns, "/proc/net/netfilter/nfnetlink_queue"));
  std::vector<int> bound;
  std::string line;
  long long dropped = 0;
  while (std::getline(table, line)) {
    std::istringstream w(line);
    long long q, port, total, mode, range, qdrop, udrop;
    if (w >> q >> port >> total >> mode >> range >> qdrop >> udrop) {
      bound.push_back(static_cast<int>(q));
      dropped += qdrop + udrop;
    }
  }
  for (int q : queues)
    if (std::find(bound.begin(), bound.end(), q) == bound.end())
      return "queue " + std::to_string(q) + " has no listener (" +
             (q >= kEgressIcmpQueueBase ? "ICMP to rank " + std::to_string(q - kEgressIcmpQueueBase)
                                        : "packets from rank " + std::to_string(q)) +
             " are dropped)";
  if (dropped > 0) return "the kernel dropped " + std::to_string(dropped) + " queued packets (queue full)";
  return "";
}

}  // namespace geotrain::emu
