#include "emu/net/command_batches.hpp"

#include <stdexcept>

namespace geotrain::emu {

namespace {

std::vector<std::string> in_namespace(const std::string& ns, std::vector<std::string> argv) {
  if (ns.empty()) return argv;
  std::vector<std::string> out = {"ip", "netns", "exec", ns};
  out.insert(out.end(), argv.begin(), argv.end());
  return out;
}

std::string line_of(const std::vector<std::string>& args, std::size_t skip_flags_w) {
  std::string line;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (skip_flags_w && args[i] == "-w") continue;
    line += (line.empty() ? "" : " ") + args[i];
  }
  return line + "\n";
}

Invocation start(const Command& c) {
  Invocation inv;
  switch (c.tool) {
    case Tool::ip:
    case Tool::tc:
      inv.argv = {tool_name(c.tool)};
      if (!c.netns.empty()) inv.argv.insert(inv.argv.end(), {"-n", c.netns});
      inv.argv.insert(inv.argv.end(), {"-batch", "-"});
      break;
    case Tool::iptables:
      inv.argv = in_namespace(c.netns, {"iptables-restore", "--noflush", "-w"});
      inv.stdin_text = "*filter\n";
      break;
    case Tool::sysctl:
      inv.argv = in_namespace(c.netns, {"sysctl", "-q", "-w"});
      break;
    default:
      throw std::invalid_argument("batch_commands: " + c.to_string() + " cannot be batched");
  }
  return inv;
}

void append(Invocation& inv, const Command& c) {
  switch (c.tool) {
    case Tool::ip:
    case Tool::tc: inv.stdin_text += line_of(c.args, false); break;
    case Tool::iptables:
      // Rules of the filter table only; "-w" belongs to iptables, not to a restore line.
      for (const auto& a : c.args)
        if (a == "-t") throw std::invalid_argument("batch_commands: only the filter table: " + c.to_string());
      inv.stdin_text += line_of(c.args, true);
      break;
    case Tool::sysctl:
      for (const auto& a : c.args)
        if (a != "-q" && a != "-w") inv.argv.push_back(a);
      break;
    default: break;
  }
  inv.commands.push_back(c);
}

}  // namespace

std::vector<Invocation> batch_commands(const std::vector<Command>& commands) {
  std::vector<Invocation> out;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    const bool same = i > 0 && commands[i - 1].tool == c.tool && commands[i - 1].netns == c.netns;
    if (!same) {
      if (!out.empty() && out.back().commands.front().tool == Tool::iptables)
        out.back().stdin_text += "COMMIT\n";
      out.push_back(start(c));
    }
    append(out.back(), c);
  }
  if (!out.empty() && out.back().commands.front().tool == Tool::iptables) out.back().stdin_text += "COMMIT\n";
  return out;
}

}  // namespace geotrain::emu
