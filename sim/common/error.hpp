#pragma once
// The small exception hierarchy of geotrain. Library code throws; only main() prints and picks
// the exit code (2 for bad input, 1 for failures of the run itself).
#include <stdexcept>
#include <string>
#include <vector>

namespace geotrain {

// Anything geotrain reports to a user.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input from the user (scenario file, flag, assignment file). Carries every problem found,
// one line each, so a user sees them all at once. Exit code 2.
class InputError : public Error {
 public:
  explicit InputError(std::vector<std::string> problems);
  explicit InputError(const std::string& problem) : InputError(std::vector<std::string>{problem}) {}
  const std::vector<std::string>& problems() const { return problems_; }

 private:
  std::vector<std::string> problems_;
};

// A scenario file that failed to parse or validate.
class ScenarioError : public InputError {
 public:
  using InputError::InputError;
};

// A command or system call that failed: keeps the call, its status and what it printed.
class SystemError : public Error {
 public:
  SystemError(std::string command, int status, std::string stderr_text);
  const std::string& command() const { return command_; }
  int status() const { return status_; }
  const std::string& stderr_text() const { return stderr_text_; }

 private:
  std::string command_;
  int status_;
  std::string stderr_text_;
};

// Something waited for did not happen in time.
class TimeoutError : public Error {
 public:
  TimeoutError(std::string what, double waited_s);
  const std::string& what_waited_for() const { return what_; }
  double waited_s() const { return waited_s_; }

 private:
  std::string what_;
  double waited_s_;
};

}  // namespace geotrain
