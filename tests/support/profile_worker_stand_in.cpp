#include "tests/support/profile_worker_stand_in.hpp"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "emu/worker/profile_ops.hpp"

namespace geotrain::test {

std::string profile_worker_stand_in(const std::string& dir, const Program& program,
                                    const std::function<double(const ComputeOp&)>& seconds_of) {
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& site : distinct_compute_ops(program)) {
    const auto& op = *program.ranks.at(static_cast<std::size_t>(site.rank))
                          .at(static_cast<std::size_t>(site.op))
                          .as<ComputeOp>();
    const double t = seconds_of(op);
    ops.push_back({{"rank", site.rank}, {"op", site.op}, {"samples_s", {t, t}}, {"cpu_samples_s", {t, t}}});
  }
  std::ofstream(dir + "/times.json") << nlohmann::json{{"format", "geotrain-profile-times"},
                                                       {"version", 1},
                                                       {"device", "cpu"},
                                                       {"torch", "stand-in"},
                                                       {"threads", 1},
                                                       {"ops", ops}}
                                            .dump();
  const std::string script = dir + "/fake-worker";
  std::ofstream(script) << "#!/bin/sh\n"
                           "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n"
                           "cp '" << dir << "/times.json' \"$out/profile_times.json\"\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

}  // namespace geotrain::test
