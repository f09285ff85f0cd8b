#include "sim/process/run.hpp"

#include <signal.h>

#include <optional>

#include "sim/common/error.hpp"
#include "sim/process/child_process.hpp"
#include "sim/process/output_pump.hpp"

namespace geotrain::process {

RunResult run(ChildSpec spec, const RunOptions& options) {
  spec.in = spec.out = spec.err = Stream::pipe();
  std::optional<OutputPump::Clock::time_point> deadline;
  if (options.timeout_s > 0)
    deadline = OutputPump::Clock::now() + std::chrono::duration_cast<OutputPump::Clock::duration>(
                                              std::chrono::duration<double>(options.timeout_s));
  ChildProcess child = ChildProcess::start(spec);
  OutputPump pump(child.take_fd(0), child.take_fd(1), child.take_fd(2));
  if (options.on_stdout_line) pump.on_stdout_line(options.on_stdout_line);
  if (options.on_stderr_line) pump.on_stderr_line(options.on_stderr_line);
  bool in_time = pump.run(options.stdin_text, deadline);
  RunResult r;
  if (in_time && deadline) {
    // Both outputs closed, but a child may close them and still run.
    const double left = std::chrono::duration<double>(*deadline - OutputPump::Clock::now()).count();
    in_time = child.wait_for(left > 0 ? left : 0).has_value();
  }
  if (!in_time) {
    child.signal_group(SIGKILL);
    child.wait();
    throw TimeoutError(command_line(spec.argv), options.timeout_s);
  }
  r.status = child.wait();
  r.out = pump.out();
  r.err = pump.err();
  return r;
}

RunResult run_checked(ChildSpec spec, const RunOptions& options, const std::string& shown) {
  const std::string name = shown.empty() ? command_line(spec.argv) : shown;
  RunResult r = run(std::move(spec), options);
  if (r.status != 0) {
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    throw SystemError(name, r.status, err);
  }
  return r;
}

}  // namespace geotrain::process
