#include "apps/scenario_summary.hpp"

#include <fmt/format.h>

#include <map>

#include "sim/common/units.hpp"
#include "sim/scenario/scenario_bandwidth.hpp"

namespace geotrain::cli {

namespace {

std::string param_text(const ParamValue& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) return x;
        else if constexpr (std::is_same_v<T, bool>) return x ? "true" : "false";
        else return fmt::format("{}", x);
      },
      v);
}

std::string device_line(const Scenario& s) {
  std::map<std::string, int> by_profile;
  for (const auto& d : s.devices) ++by_profile[d.profile];
  std::string out = fmt::format("{}", s.devices.size());
  std::string parts;
  for (const auto& [name, count] : by_profile)
    parts += fmt::format("{}{} x{}", parts.empty() ? "" : ", ", name, count);
  int slow = 0;
  for (const auto& d : s.devices) slow += d.slowdown != 1.0;
  return out + " (" + parts + (slow ? fmt::format("; {} with a slowdown", slow) : "") + ")";
}

std::string region_line(const Topology& t) {
  std::vector<int> members(static_cast<std::size_t>(t.region_count()), 0);
  for (int i = 0; i < t.device_count(); ++i) ++members[static_cast<std::size_t>(t.region_of(i))];
  std::string out;
  int shown = 0;
  for (int r = 0; r < t.region_count(); ++r) {
    if (members[static_cast<std::size_t>(r)] == 0) continue;
    if (++shown > 12) {
      out += fmt::format(", ... ({} regions)", t.region_count());
      break;
    }
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", t.region_name(r), members[static_cast<std::size_t>(r)]);
  }
  return out;
}

}  // namespace

std::string scenario_summary(const Scenario& s) {
  using namespace units;
  const Topology net = s.effective_network();
  const auto st = net.stats();
  const ModelSpec& m = s.model;
  std::string out;
  out += fmt::format("scenario   {}{}\n", s.name, s.path.empty() ? "" : " (" + s.path + ")");
  out += fmt::format("devices    {}\n", device_line(s));
  out += fmt::format("network    {}; {}\n", s.network_source, net.is_regional() ? "regional" : "matrix");
  out += fmt::format("regions    {}\n", region_line(net));
  for (const auto& filled : s.filled_pairs) out += fmt::format("filled     {}\n", filled);
  out += fmt::format("links      delay {} .. {}, bandwidth {} .. {}\n", format_duration(st.min_delay_s),
                     format_duration(st.max_delay_s), format_bandwidth(st.min_bandwidth_Bps),
                     format_bandwidth(st.max_bandwidth_Bps));
  if (s.emulation.bandwidth_scale != 1 || s.emulation.delay_scale != 1)
    out += fmt::format("scaled     bandwidth x{}, delay x{} (emulation scales, used by every executor)\n",
                       s.emulation.bandwidth_scale, s.emulation.delay_scale);
  if (!s.bandwidth_changes.empty()) {
    const auto steps = resolve_bandwidth_schedule(s).describe();
    for (std::size_t i = 0; i < steps.size() && i < 12; ++i)
      out += fmt::format("bandwidth  {}\n", steps[i]);
    if (steps.size() > 12) out += fmt::format("bandwidth  ... ({} changes)\n", steps.size());
  }
  out += fmt::format("model      {}: {} layers, d_model {}, {} heads, seq {}, vocab {}, {}; {:.4g}M params{}\n",
                     m.preset, m.layers, m.d_model, m.heads, m.seq_len, m.vocab, dtype_name(m.dtype),
                     total_params(m) / 1e6,
                     m.nominal_params > 0 ? fmt::format(" (nominal {:.4g}M)", m.nominal_params / 1e6) : "");
  out += fmt::format("training   global batch {:.6g} sequences ({:.6g} tokens), {} steps\n",
                     s.training.global_batch, s.training.global_batch * m.seq_len, s.training.steps);
  std::string params;
  for (const auto& [k, v] : s.strategy.params) params += fmt::format(" {}={}", k, param_text(v));
  out += fmt::format("strategy   {}{}\n", s.strategy.name, params);
  if (!s.churn.absences.empty()) {
    std::string away;
    for (const auto& a : s.churn.absences)
      away += fmt::format("{}worker {} away in rounds {}..{}", away.empty() ? "" : "; ", a.worker,
                          a.leave, a.join < 0 ? std::string("end") : std::to_string(a.join - 1));
    out += fmt::format("churn      {}\n", away);
  }
  static const char* placement[] = {"identity", "random", "file", "scheduler"};
  out += fmt::format("placement  {}\n", placement[static_cast<int>(s.placement.kind)]);
  return out;
}

}  // namespace geotrain::cli
