#include "apps/child_process.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/process/child_process.hpp"

namespace geotrain::cli {

namespace {

std::string tail_of(const std::string& path, std::size_t max_chars) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  return s.size() > max_chars ? "..." + s.substr(s.size() - max_chars) : s;
}

}  // namespace

std::string self_executable() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

void run_child(const std::string& program, const std::vector<std::string>& args,
               const std::string& log_path) {
  process::ChildSpec spec;
  spec.argv = {program};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  // A `validate` or `compare` that is stopped takes its run with it: an orphaned `emulate` went
  // on holding the host's namespaces and cores under the next run (seen with a killed validate).
  // Its emu guard still removes what the emulation had set up.
  spec.die_with_parent = true;
  if (!log_path.empty()) {
    // Appended, so a failed run's log keeps what came before; a log that cannot be opened
    // leaves the output on our terminal rather than failing the run.
    spec.out = process::Stream::file(log_path, true, false);
    spec.err = process::Stream::like_stdout();
  }
  const int code = process::ChildProcess::start(spec).wait();
  if (code != 0)
    throw SystemError(process::command_line(spec.argv), code,
                      log_path.empty() ? "(output above)" : tail_of(log_path, 1500));
}

}  // namespace geotrain::cli
