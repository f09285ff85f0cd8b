#include "apps/child_process.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"

namespace geotrain::cli {

namespace {

std::string tail_of(const std::string& path, std::size_t max_chars) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string s = ss.str();
  return s.size() > max_chars ? "..." + s.substr(s.size() - max_chars) : s;
}

std::string command_line(const std::string& program, const std::vector<std::string>& args) {
  std::string c = program;
  for (const auto& a : args) c += " " + a;
  return c;
}

}  // namespace

std::string self_executable() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

void run_child(const std::string& program, const std::vector<std::string>& args,
               const std::string& log_path) {
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string command = command_line(program, args);
  const pid_t pid = fork();
  if (pid < 0) throw SystemError(command, errno, std::strerror(errno));
  if (pid == 0) {
    if (!log_path.empty()) {
      const int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      if (fd >= 0) dup2(fd, STDOUT_FILENO), dup2(fd, STDERR_FILENO), close(fd);
    }
    execv(program.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (code != 0)
    throw SystemError(command, code, log_path.empty() ? "(output above)" : tail_of(log_path, 1500));
}

}  // namespace geotrain::cli
