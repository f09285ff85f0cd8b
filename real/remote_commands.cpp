#include "real/remote_commands.hpp"

#include <fmt/format.h>

#include "real/shell_quote.hpp"
#include "sim/common/error.hpp"

namespace geotrain::real {

namespace {

// Both scripts serialise changes of workers.json with a mkdir lock (atomic on every file
// system); a lock left by a wrapper killed inside it is broken after ~10 s.
constexpr const char* kLockFunctions = R"sh(g="$wd/.geotrain"
lock() { n=0; until mkdir "$g/lock" 2>/dev/null; do n=$((n+1)); if [ "$n" -ge 100 ]; then rmdir "$g/lock" 2>/dev/null; n=0; fi; sleep 0.1; done; }
unlock() { rmdir "$g/lock" 2>/dev/null; }
publish() { first=1; { printf '['; for f in "$g"/workers.d/*.json; do [ -f "$f" ] || continue; [ "$first" = 1 ] || printf ','; first=0; cat "$f"; done; printf ']\n'; } >"$g/workers.json.tmp" && mv -f "$g/workers.json.tmp" "$g/workers.json"; }
)sh";

}  // namespace

std::string sh_command(const std::string& script, const std::string& name, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"sh", "-c", script, name};
  argv.insert(argv.end(), args.begin(), args.end());
  return shell_command(argv);
}

// The wrapper's own stderr goes to /dev/null once the worker runs: the worker writes to the
// caller's stderr through fd 4. Otherwise dash may report a killed background job ("Killed")
// on that stderr when it reaps it early, and the failure message, which quotes the last
// stderr line, would name the shell's word instead of the worker's. The wrapper's own
// bookkeeping (lock, workers.json) is silenced with it: redirecting just those commands to fd 4
// would not do, since the shell would then print its job notices there while they run.
const std::string& worker_wrapper_script() {
  static const std::string script = std::string("wd=$1; rank=$2; shift 2\n") + kLockFunctions +
                                    fmt::format(R"sh(mkdir -p "$g/workers.d" "$wd/ranks/$rank" || exit {setup}
exec 3<&0 4>&2 2>/dev/null
setsid "$@" </dev/null 2>&4 3<&- 4>&- &
pid=$!
trap '' HUP PIPE
lock; printf '{{"rank":%s,"pid":%s,"pgid":%s}}' "$rank" "$pid" "$pid" >"$g/workers.d/$rank.json"; publish; unlock
( cat <&3 >/dev/null 2>&1; kill -TERM -"$pid" 2>/dev/null; sleep {grace}; kill -KILL -"$pid" 2>/dev/null ) </dev/null >/dev/null 2>&1 4>&- &
watcher=$!
exec 3<&- 4>&-
wait "$pid"; status=$?
kill "$watcher" 2>/dev/null
lock; rm -f "$g/workers.d/$rank.json"; publish; unlock
exit "$status"
)sh", fmt::arg("setup", kWrapperSetupFailed), fmt::arg("grace", kKillGrace_s));
  return script;
}

std::string worker_command(const std::string& workdir, int rank,
                           const std::vector<std::pair<std::string, std::string>>& env,
                           const std::vector<std::string>& argv) {
  std::vector<std::string> args = {workdir, std::to_string(rank), "env"};
  for (const auto& [k, v] : env) args.push_back(k + "=" + v);
  args.insert(args.end(), argv.begin(), argv.end());
  return sh_command(worker_wrapper_script(), "geotrain-real-wrapper", args);
}

const std::string& stage_script() {
  static const std::string script = std::string("wd=$1; shift\n") + kLockFunctions +
                                    fmt::format(R"sh(mkdir -p "$g" || exit 1
if [ -f "$g/workers.json" ]; then
  alive=
  for p in $(tr ',' '\n' <"$g/workers.json" | sed -n 's/.*"pid":\([0-9][0-9]*\).*/\1/p'); do
    if kill -0 "$p" 2>/dev/null; then alive="$alive $p"; fi
  done
  if [ -n "$alive" ]; then echo "workers of an earlier run still run here (pids$alive; see $g/workers.json)" >&2; exit {alive}; fi
fi
rm -rf "$g/workers.d" "$g/lock" "$g/workers.json" "$g/workers.json.tmp"
mkdir -p "$g/workers.d" || exit 1
for r in "$@"; do rm -rf "$wd/ranks/$r" && mkdir -p "$wd/ranks/$r" || exit 1; done
cat >"$wd/job.json.tmp" && mv -f "$wd/job.json.tmp" "$wd/job.json"
)sh", fmt::arg("alive", kStageWorkersAlive));
  return script;
}

std::string stage_command(const std::string& workdir, const std::vector<int>& ranks) {
  std::vector<std::string> args = {workdir};
  for (int r : ranks) args.push_back(std::to_string(r));
  return sh_command(stage_script(), "geotrain-real-stage", args);
}

const std::string& fetch_script() {
  static const std::string script = R"sh(wd=$1; rank=$2; shift 2
for f in "$@"; do
  p="$wd/ranks/$rank/$f"
  if [ -f "$p" ]; then printf '%s %s\n' "$f" "$(wc -c <"$p" | tr -d ' ')"; cat "$p" || exit 1; fi
done
)sh";
  return script;
}

std::string fetch_command(const std::string& workdir, int rank, const std::vector<std::string>& files) {
  std::vector<std::string> args = {workdir, std::to_string(rank)};
  args.insert(args.end(), files.begin(), files.end());
  return sh_command(fetch_script(), "geotrain-real-fetch", args);
}

std::vector<std::pair<std::string, std::string>> parse_fetched(const std::string& out) {
  std::vector<std::pair<std::string, std::string>> files;
  std::size_t at = 0;
  while (at < out.size()) {
    const auto nl = out.find('\n', at);
    const auto space = out.find(' ', at);
    if (nl == std::string::npos || space == std::string::npos || space > nl)
      throw Error(fmt::format("fetched files: no '<name> <size>' header at byte {}", at));
    const std::string name = out.substr(at, space - at), size_text = out.substr(space + 1, nl - space - 1);
    std::size_t size = 0;
    try {
      std::size_t used = 0;
      size = std::stoull(size_text, &used);
      if (used != size_text.size()) throw std::invalid_argument(size_text);
    } catch (const std::exception&) {
      throw Error(fmt::format("fetched files: '{}': size '{}' is not a number", name, size_text));
    }
    if (nl + 1 + size > out.size())
      throw Error(fmt::format("fetched files: '{}': {} bytes announced, {} received", name, size, out.size() - nl - 1));
    files.emplace_back(name, out.substr(nl + 1, size));
    at = nl + 1 + size;
  }
  return files;
}

}  // namespace geotrain::real
