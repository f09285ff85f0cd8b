#pragma once
// Starts geotrain-delayer inside a rank's namespace as a daemon of its own (new session, so a
// Ctrl-C in the terminal that ran `emu up` does not reach it) and waits until it has bound all
// its queues: only then may iptables send packets to them.
#include <sys/types.h>

#include "emu/net/command.hpp"
#include "emu/net/state_store.hpp"

namespace geotrain::emu {

// command: a Tool::delayer step (args[0] = executable). Throws SystemError with the delayer's
// own message when it fails to start within timeout_s.
pid_t start_delayer(const Command& command, const StateStore& store, double timeout_s = 10);

// Whether the delayer of netns still serves every queue it should: its pid is alive and
// /proc/net/netfilter/nfnetlink_queue in the namespace lists each queue. "" if healthy, else why.
std::string delayer_health(const std::string& netns, pid_t pid, const std::vector<int>& queues);

// The queue numbers of a delayer command line (--queue <num>:<delay>).
std::vector<int> delayer_queues(const Command& command);

}  // namespace geotrain::emu
