#pragma once
// Groups consecutive plan commands of one tool in one namespace into a single invocation:
// `ip -n NS -batch -`, `tc -n NS -batch -`, `iptables-restore --noflush` and one sysctl with
// every key. A 16-rank cluster has ~1,000 commands; one process each would take seconds, one
// process per group takes well under one. Pure: unit-tested without root.
#include <string>
#include <vector>

#include "emu/net/command.hpp"

namespace geotrain::emu {

struct Invocation {
  std::vector<std::string> argv;
  std::string stdin_text;
  std::vector<Command> commands;  // what it carries, for error messages
};

// Commands of Tool::delayer / Tool::stop_delayer are not batched (the applier runs them itself);
// passing one here throws std::invalid_argument.
std::vector<Invocation> batch_commands(const std::vector<Command>& commands);

}  // namespace geotrain::emu
