#pragma once
// Synthetic run directories (summary.json + ops.csv) and child runs of the geotrain binary.
#include <string>
#include <vector>

namespace geotrain::test {

// A fresh empty directory under the system temp folder.
std::string temp_dir(const std::string& name);

// Runs GEOTRAIN_BINARY with `args`; returns its exit code, output in `output`.
int run_geotrain(const std::string& args, std::string& output);

void write_file(const std::string& path, const std::string& text);

// One ops.csv row in the shared column order.
std::string op_line(int rank, int iteration, int op, const std::string& type, bool nonblocking,
                    double start_s, double end_s, int peer = -1, const std::string& group = "");
std::string ops_header();

}  // namespace geotrain::test
