#include "emu/net/process_runner.hpp"

namespace geotrain::emu {

namespace {

process::ChildSpec spec_of(const std::vector<std::string>& argv) {
  process::ChildSpec s;
  s.argv = argv;
  s.search_path = true;
  s.die_with_parent = true;
  s.report_setup_errors = true;  // "cannot run ip: ..." lands in the captured stderr
  return s;
}

process::RunOptions with_stdin(const std::string& stdin_text) {
  process::RunOptions o;
  o.stdin_text = stdin_text;
  return o;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text) {
  return process::run(spec_of(argv), with_stdin(stdin_text));
}

ProcessResult run_checked(const std::vector<std::string>& argv, const std::string& stdin_text,
                          const std::string& shown) {
  return process::run_checked(spec_of(argv), with_stdin(stdin_text), shown);
}

}  // namespace geotrain::emu
