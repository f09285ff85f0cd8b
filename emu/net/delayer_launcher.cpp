#include "emu/net/delayer_launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "emu/net/netns_util.hpp"
#include "emu/net/plan.hpp"
#include "sim/common/error.hpp"
#include "sim/process/child_process.hpp"

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

}  // namespace

pid_t start_delayer(const Command& command, const StateStore& store, double timeout_s) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) throw SystemError("pipe", errno, std::strerror(errno));
  process::ChildSpec spec;
  spec.argv = command.args;
  spec.argv.insert(spec.argv.end(),
                   {"--ready-fd", "3", "--stats", store.delayer_stats(command.netns)});
  spec.netns = command.netns;
  // Its own session: a Ctrl-C in the terminal that ran `emu up` must not reach it.
  spec.group = process::Group::own_session;
  // Until it reports ready the delayer dies with its starter (a kill -9 of geotrain before then
  // must not leave a delayer the guardian's scan missed); the delayer clears this once ready.
  spec.die_with_parent = true;
  spec.out = process::Stream::file(store.delayer_log(command.netns), false, false);
  spec.err = process::Stream::like_stdout();
  spec.in = process::Stream::null();
  spec.pass_fds = {ready[1]};
  spec.report_setup_errors = true;
  process::ChildProcess child;
  try {
    child = process::ChildProcess::start(spec);
  } catch (...) {
    close(ready[0]), close(ready[1]);
    throw;
  }
  close(ready[1]);
  char buf[16] = {};
  pollfd pfd{ready[0], POLLIN, 0};
  const int polled = poll(&pfd, 1, static_cast<int>(timeout_s * 1000));
  const ssize_t n = polled > 0 ? read(ready[0], buf, sizeof buf - 1) : 0;
  close(ready[0]);
  if (n > 0 && std::strncmp(buf, "ready", 5) == 0) return child.release();  // runs on, a daemon
  child.stop(1.0);
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
