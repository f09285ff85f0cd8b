#include "worker_launcher.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace geotrain::test {

namespace {

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
    throw std::runtime_error("cannot find a free port");
  ::close(fd);
  return ntohs(a.sin_port);
}

pid_t spawn(const std::vector<std::string>& args, const std::string& err_path) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  const int fd = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 2);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else out.back() += c;
  }
  return out;
}

}  // namespace

namespace {

// One scratch directory per test process, removed when it exits: ctest runs test cases as
// parallel processes (-j), and two cases launching the same scenario must not share (or delete)
// each other's run files (seen: DiLoCo's fp32 case reading the fp16 case's bytes).
struct ProcessScratch {
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("geotrain-worker-test-" + std::to_string(getpid()));
  ~ProcessScratch() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
};

const std::filesystem::path& scratch_dir() {
  static const ProcessScratch scratch;
  return scratch.dir;
}

}  // namespace

WorkerRun launch_workers(const WorkerJob& job, const std::string& name, const LaunchOptions& o) {
  WorkerRun run;
  run.dir = (scratch_dir() / name).string();
  std::filesystem::remove_all(run.dir);
  std::filesystem::create_directories(run.dir);
  const auto job_path = run.dir + "/job.json";
  write_worker_job(job, job_path);
  const int n = job.program.world_size, port = free_port();
  std::vector<pid_t> pids;
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < n; ++r) {
    const auto dir = run.dir + "/rank" + std::to_string(r);
    std::filesystem::create_directories(dir);
    pids.push_back(spawn({GEOTRAIN_WORKER_BINARY, "--program", job_path, "--rank", std::to_string(r),
                          "--store-addr", "127.0.0.1", "--store-port", std::to_string(port),
                          "--bind-addr", "127.0.0.1", "--steps", std::to_string(o.steps), "--out",
                          dir, "--threads", "1", "--seed", "7", "--collectives", o.collectives,
                          "--timeout", std::to_string(o.timeout_s), "--log", "emu.worker:info"},
                         dir + "/stderr.txt"));
  }
  run.exit_codes.assign(n, -1);
  run.exit_after_s.assign(n, 0);
  int left = n;
  bool killed = o.kill_rank < 0;
  while (left > 0) {
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!killed &&
        slurp(run.dir + "/rank" + std::to_string(o.kill_rank) + "/stderr.txt").find(o.kill_when) !=
            std::string::npos) {
      ::kill(pids[o.kill_rank], SIGKILL);
      killed = true;
      run.killed_at_s = t;
    }
    for (int r = 0; r < n; ++r) {
      int status = 0;
      if (run.exit_codes[r] != -1 || ::waitpid(pids[r], &status, WNOHANG) != pids[r]) continue;
      run.exit_codes[r] = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      run.exit_after_s[r] = t;
      --left;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (int r = 0; r < n; ++r)
    run.stderr_text.push_back(slurp(run.dir + "/rank" + std::to_string(r) + "/stderr.txt"));
  return run;
}

std::vector<IterationRow> read_iterations(const std::string& rank_dir) {
  std::ifstream in(rank_dir + "/iterations.csv");
  std::string line;
  std::getline(in, line);  // header
  std::vector<IterationRow> rows;
  while (std::getline(in, line)) {
    const auto f = split_csv_line(line);
    rows.push_back({std::stod(f.at(1)), f.at(2).empty() ? std::nan("") : std::stod(f[2]),
                    std::stod(f.at(3))});
  }
  return rows;
}

std::map<std::pair<int, int>, double> read_op_bytes(const std::string& rank_dir) {
  std::ifstream in(rank_dir + "/ops.csv");
  std::string line;
  std::getline(in, line);
  std::map<std::pair<int, int>, double> bytes;
  while (std::getline(in, line)) {
    const auto f = split_csv_line(line);  // rank,op,label,kind,start_s,end_s,bytes,step,cpu_s
    bytes[{std::stoi(f.at(7)), std::stoi(f.at(1))}] = f.at(6).empty() ? -1 : std::stod(f[6]);
  }
  return bytes;
}

std::map<std::pair<int, int>, std::pair<double, double>> read_op_times(const std::string& rank_dir) {
  std::ifstream in(rank_dir + "/ops.csv");
  std::string line;
  std::getline(in, line);
  std::map<std::pair<int, int>, std::pair<double, double>> times;
  while (std::getline(in, line)) {
    const auto f = split_csv_line(line);
    times[{std::stoi(f.at(7)), std::stoi(f.at(1))}] = {std::stod(f.at(4)), std::stod(f.at(5))};
  }
  return times;
}

std::vector<DynamicRow> read_dynamic(const std::string& rank_dir) {
  std::ifstream in(rank_dir + "/dynamic.csv");
  std::string line;
  std::getline(in, line);  // step,op,rule,round,members,decided_s
  std::vector<DynamicRow> rows;
  while (std::getline(in, line)) {
    const auto f = split_csv_line(line);
    DynamicRow row{std::stoi(f.at(0)), std::stoi(f.at(1)), f.at(2), std::stoll(f.at(3)), {}};
    std::stringstream members(f.at(4));
    for (std::string m; std::getline(members, m, ';');) row.members.push_back(std::stoi(m));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace geotrain::test
