#pragma once
// The commands `geotrain real run` sends over ssh, as the one string ssh hands to the remote
// login shell. Each is `sh -c '<script>' <name> <arguments...>` with every piece quoted for a
// POSIX shell, so nothing of a path or a value is ever parsed as shell syntax remotely, and
// the host needs nothing of geotrain but the worker (no geotrain binary, no copied script).
//
// The worker wrapper (worker_wrapper_script) keeps a worker from outliving its controller:
// killing a local ssh client does not stop the remote command, but closing its stdin does
// reach it. The wrapper
//   1. starts the worker in a session (and process group) of its own: `setsid env K=V worker ...`,
//      stdin /dev/null, stdout and stderr the ssh channel (the controller streams them);
//   2. records {"rank":R,"pid":P,"pgid":G} in <workdir>/.geotrain/workers.json, a JSON array of
//      the host's live workers (one file per rank under workers.d/, joined under a mkdir lock), so
//      `geotrain real down` can kill what a lost controller left;
//   3. blocks reading its stdin in a watcher; when stdin ends (the controller closed it, died,
//      or its ssh connection broke) the watcher sends SIGTERM to the worker's group and SIGKILL
//      kKillGrace_s later;
//   4. ignores SIGHUP and SIGPIPE itself (sshd may hang up the session when the connection
//      drops: the wrapper and its watcher must live on to kill the group and clean up);
//   5. waits for the worker, removes its record and exits with the worker's status (128 + signal
//      when killed), which ssh passes on as its own exit status.
#include <string>
#include <utility>
#include <vector>

namespace geotrain::real {

// Seconds between the wrapper's SIGTERM and SIGKILL to a worker group whose stdin closed.
inline constexpr int kKillGrace_s = 2;
// Exit status of the wrapper when it cannot create its directories on the host.
inline constexpr int kWrapperSetupFailed = 120;
// Exit status of the staging script when the host still runs workers of an earlier run.
inline constexpr int kStageWorkersAlive = 121;

// `sh -c <script quoted> <name> <args quoted...>` (real/shell_quote.hpp): what ssh sends as its
// remote command.
std::string sh_command(const std::string& script, const std::string& name, const std::vector<std::string>& args);

// The wrapper's script text ($1 workdir, $2 rank, then the command to run).
const std::string& worker_wrapper_script();
// The remote command that runs `env K=V ... argv...` as rank `rank` under the wrapper.
std::string worker_command(const std::string& workdir, int rank,
                           const std::vector<std::pair<std::string, std::string>>& env,
                           const std::vector<std::string>& argv);

// The staging script ($1 workdir, then the host's ranks): refuses (exit kStageWorkersAlive,
// naming the pids) when workers.json lists a live process, else clears .geotrain/ and each rank's
// ranks/R/, and writes its stdin to <workdir>/job.json (through a temporary file and a rename).
const std::string& stage_script();
std::string stage_command(const std::string& workdir, const std::vector<int>& ranks);

// The fetch script ($1 workdir, $2 rank, then file names): for each file of ranks/R/ that exists,
// a line "<name> <size>\n" followed by its bytes.
const std::string& fetch_script();
std::string fetch_command(const std::string& workdir, int rank, const std::vector<std::string>& files);

// The fetch script's output split back into (name, content); throws Error when it is malformed.
std::vector<std::pair<std::string, std::string>> parse_fetched(const std::string& out);

}  // namespace geotrain::real
