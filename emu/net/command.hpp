#pragma once
// One step of an emulated cluster's plan: a command (ip, tc, iptables, sysctl, or starting the
// delayer), the namespace it runs in, and how to undo it. The planner produces these without
// touching the system; the applier runs them (batched per tool and namespace for speed) and
// undoes them in reverse order.
#include <optional>
#include <string>
#include <vector>

namespace geotrain::emu {

// delayer: args[0] is the executable; stop_delayer: ends the delayer of netns (by its pid).
enum class Tool { ip, tc, iptables, sysctl, delayer, stop_delayer };

struct Command {
  Tool tool = Tool::ip;
  std::string netns;              // "" = the host's namespace
  std::vector<std::string> args;  // without the tool name

  // The shell form a person could paste: "ip netns exec gt-x-0 tc qdisc add ..." or
  // "tc -n gt-x-0 qdisc add ...".
  std::string to_string() const;
};

struct Step {
  Command action;
  // Empty when the object goes away with something undone later anyway (a tc class with its
  // root qdisc, anything inside a namespace with the namespace).
  std::optional<Command> undo;
};

// The delayer executable's queue argument: "<queue>:<delay in ns>".
struct DelayerQueue {
  int queue = 0;
  long long delay_ns = 0;
};

std::string tool_name(Tool tool);

}  // namespace geotrain::emu
