#include "sim/process/output_pump.hpp"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "sim/process/close_fd.hpp"

namespace geotrain::process {

namespace {

// A child that exits early must not kill us with SIGPIPE while we feed it: ignored for the
// pump's lifetime, restored after (the write then fails with EPIPE and feeding stops).
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &old_);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &old_, nullptr); }
  IgnoreSigpipe(const IgnoreSigpipe&) = delete;
  IgnoreSigpipe& operator=(const IgnoreSigpipe&) = delete;

 private:
  struct sigaction old_ {};
};

}  // namespace

OutputPump::OutputPump(int stdin_fd, int stdout_fd, int stderr_fd)
    : in_fd_(stdin_fd), fd_{stdout_fd, stderr_fd} {}

OutputPump::~OutputPump() {
  close_all();
}

void OutputPump::close_all() {
  close_fd(in_fd_);
  close_fd(fd_[0]);
  close_fd(fd_[1]);
}

void OutputPump::feed(const std::string& input) {
  const ssize_t n = ::write(in_fd_, input.data() + written_, input.size() - written_);
  if (n > 0) written_ += static_cast<std::size_t>(n);
  if (n < 0 || written_ == input.size()) close_fd(in_fd_);
}

void OutputPump::drain(int k) {
  char buf[65536];
  const ssize_t n = ::read(fd_[k], buf, sizeof buf);
  if (n > 0)
    text_[k].append(buf, static_cast<std::size_t>(n));
  else if (n == 0 || errno != EINTR)
    close_fd(fd_[k]);
  if (!line_fn_[k]) return;
  std::string& t = text_[k];
  for (auto nl = t.find('\n', line_start_[k]); nl != std::string::npos;
       nl = t.find('\n', line_start_[k])) {
    line_fn_[k](t.substr(line_start_[k], nl - line_start_[k]));
    line_start_[k] = nl + 1;
  }
  if (fd_[k] < 0 && line_start_[k] < t.size()) {  // a last line without '\n'
    line_fn_[k](t.substr(line_start_[k]));
    line_start_[k] = t.size();
  }
}

bool OutputPump::run(const std::string& input, std::optional<Clock::time_point> deadline) {
  const IgnoreSigpipe ignore;
  if (input.empty()) close_fd(in_fd_);
  while (in_fd_ >= 0 || fd_[0] >= 0 || fd_[1] >= 0) {
    int timeout_ms = -1;
    if (deadline) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(*deadline - Clock::now()).count();
      if (left <= 0) {
        close_all();
        return false;
      }
      timeout_ms = static_cast<int>(std::min<long long>(left, 1000 * 1000));
    }
    pollfd fds[3] = {{in_fd_, POLLOUT, 0}, {fd_[0], POLLIN, 0}, {fd_[1], POLLIN, 0}};
    if (::poll(fds, 3, timeout_ms) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (in_fd_ >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) feed(input);
    for (int k = 0; k < 2; ++k)
      if (fd_[k] >= 0 && (fds[k + 1].revents & (POLLIN | POLLHUP | POLLERR))) drain(k);
  }
  close_all();
  return true;
}

}  // namespace geotrain::process
