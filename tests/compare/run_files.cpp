#include "run_files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tests/support/remove_at_exit.hpp"

namespace geotrain::test {

std::string temp_dir(const std::string& name) {
  const auto p = std::filesystem::temp_directory_path() / fmt::format("geotrain_compare_{}_{}", name, getpid());
  std::filesystem::remove_all(p);
  std::filesystem::create_directories(p);
  remove_at_exit(p.string());
  return p.string();
}

int run_geotrain(const std::string& args, std::string& output) {
  const std::string cmd = std::string(GEOTRAIN_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return -1;
  std::array<char, 4096> buf{};
  output.clear();
  while (std::fgets(buf.data(), buf.size(), pipe)) output += buf.data();
  const int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::string ops_header() {
  return "rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,idle_s,bytes_sent,peer,group\n";
}

std::string op_line(int rank, int iteration, int op, const std::string& type, bool nonblocking,
                    double start_s, double end_s, int peer, const std::string& group) {
  return fmt::format("{},{},{},{},{},\"{} {}, x\",{},{},{},{},,,{},{}\n", rank, rank, iteration, op, type,
                     type, op, nonblocking ? 1 : 0, start_s, end_s, end_s - start_s,
                     peer < 0 ? "" : std::to_string(peer), group);
}

}  // namespace geotrain::test
