#include "emu/net/command.hpp"

namespace geotrain::emu {

std::string tool_name(Tool tool) {
  switch (tool) {
    case Tool::ip: return "ip";
    case Tool::tc: return "tc";
    case Tool::iptables: return "iptables";
    case Tool::sysctl: return "sysctl";
    case Tool::delayer: return "";
    case Tool::stop_delayer: return "kill";
  }
  return "?";
}

namespace {

std::string quoted(const std::string& arg) {
  return arg.find_first_of(" \t'\"$") == std::string::npos ? arg : "'" + arg + "'";
}

}  // namespace

std::string Command::to_string() const {
  if (tool == Tool::stop_delayer)
    return netns.empty() ? "kill <pid of the geotrain-delayer>" : "kill <pid of the geotrain-delayer in " + netns + ">";
  std::string out;
  // ip and tc take the namespace as an option (no extra process); the others need ip netns exec.
  if (!netns.empty() && (tool == Tool::ip || tool == Tool::tc)) {
    out = tool_name(tool) + " -n " + netns;
  } else {
    if (!netns.empty()) out = "ip netns exec " + netns + " ";
    out += tool_name(tool);
  }
  for (const auto& a : args) out += (out.empty() || out.back() == ' ' ? "" : " ") + quoted(a);
  return out;
}

}  // namespace geotrain::emu
