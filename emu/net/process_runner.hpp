#pragma once
// Runs a program (no shell), feeding it stdin and capturing what it prints.
#include <string>
#include <vector>

namespace geotrain::emu {

struct ProcessResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text = "");

// The same, but throws SystemError{command, status, stderr} unless it exits 0.
// shown: how the failing command is named in the error (defaults to argv joined).
ProcessResult run_checked(const std::vector<std::string>& argv, const std::string& stdin_text = "",
                          const std::string& shown = "");

}  // namespace geotrain::emu
