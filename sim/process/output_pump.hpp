#pragma once
// Feeds a child's stdin and drains its stdout and stderr together, so a chatty child never
// blocks on a full pipe while we wait on the other one. Keeps what it read and, for streaming
// (a remote run's progress), hands every complete line to a callback as it arrives.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

namespace geotrain::process {

class OutputPump {
 public:
  using Clock = std::chrono::steady_clock;
  using LineFn = std::function<void(const std::string& line)>;  // without its '\n'

  // Takes the parent's pipe ends (-1: none) and closes them when done.
  OutputPump(int stdin_fd, int stdout_fd, int stderr_fd);
  ~OutputPump();
  OutputPump(const OutputPump&) = delete;
  OutputPump& operator=(const OutputPump&) = delete;

  void on_stdout_line(LineFn fn) { line_fn_[0] = std::move(fn); }
  void on_stderr_line(LineFn fn) { line_fn_[1] = std::move(fn); }

  // Until both outputs reach end of file, or until `deadline`: false when the deadline came
  // first (the pipes are then closed; what was read so far is kept).
  bool run(const std::string& input, std::optional<Clock::time_point> deadline);

  const std::string& out() const { return text_[0]; }
  const std::string& err() const { return text_[1]; }

 private:
  void feed(const std::string& input);
  void drain(int k);
  void close_all();

  int in_fd_;
  int fd_[2];
  std::size_t written_ = 0;
  std::string text_[2];
  std::size_t line_start_[2] = {0, 0};  // where the next unreported line begins in text_
  LineFn line_fn_[2];
};

}  // namespace geotrain::process
