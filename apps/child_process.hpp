#pragma once
// Runs this `geotrain` executable again as a child process. SimGrid allows one simulation per
// process, and an emulation owns the host's namespaces while it runs: `compare` and `validate`
// start each run as its own `geotrain simulate|emulate` child.
#include <string>
#include <vector>

namespace geotrain::cli {

// Path of the running executable (/proc/self/exe).
std::string self_executable();

// Runs `program args...`; output goes to `log_path` (appended) or, when empty, to our stdout
// and stderr. Throws SystemError naming the command, its status and the log's last lines.
void run_child(const std::string& program, const std::vector<std::string>& args,
               const std::string& log_path = "");

}  // namespace geotrain::cli
