#pragma once
// Runs a program (no shell, looked up in PATH), feeding it stdin and capturing what it prints.
// The emulator's children die with geotrain (PR_SET_PDEATHSIG): an `ip -batch` still creating
// namespaces after a kill -9 of geotrain would race the guardian's teardown (cluster_guard.hpp)
// and leave some behind. The mechanics live in sim/process.
#include <string>
#include <vector>

#include "sim/process/run.hpp"

namespace geotrain::emu {

using ProcessResult = process::RunResult;  // status: exit status, or 128 + signal

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text = "");

// The same, but throws SystemError{command, status, stderr} unless it exits 0.
// shown: how the failing command is named in the error (defaults to argv joined).
ProcessResult run_checked(const std::vector<std::string>& argv, const std::string& stdin_text = "",
                          const std::string& shown = "");

}  // namespace geotrain::emu
