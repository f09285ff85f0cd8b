#include "real/real_apply.hpp"

#include <fmt/format.h>

#include "real/host_check.hpp"
#include "real/host_scripts.hpp"
#include "real/host_state.hpp"

namespace geotrain::real {

namespace {

constexpr double kApplyScriptTimeout = 120;  // a host's checks or its whole apply (delayer start included)

std::vector<std::string> sysctl_names(const HostPlan& p) {
  std::vector<std::string> names;
  for (const auto& c : p.sysctls)
    for (const auto& a : c.args)
      if (a.find('=') != std::string::npos) names.push_back(a.substr(0, a.find('=')));
  return names;
}

HostState state_of(const RealPlan& plan, const HostPlan& p, const HostCheck& check, bool netem) {
  HostState s;
  s.host = p.host.name;
  s.scenario = plan.scenario;
  s.interface = p.host.interface;
  s.variant = netem ? "netem" : "delayer";
  s.geotrain_version = GEOTRAIN_VERSION;
  for (const auto& c : netem ? p.undo_netem : p.undo_delayer) s.undo.push_back(undo_argv(c));
  if (!netem) s.delayer_tag = "gt-real-" + p.host.name;
  for (const auto& name : sysctl_names(p)) {
    const auto it = check.sysctls.find(name);
    s.sysctls.emplace_back(name, it == check.sysctls.end() ? "" : it->second);
  }
  if (!default_qdisc(qdisc_kind(check.root_qdisc))) s.replaced_qdisc = check.root_qdisc;
  return s;
}

// Undo every touched host; what could not be undone is added to the message.
std::string undo_touched(const HostsFile& hosts, std::size_t upto, const SshOptions& ssh, const Say& say) {
  std::string left;
  for (std::size_t i = 0; i <= upto && i < hosts.hosts.size(); ++i) {
    try {
      for (const auto& line : down_host(hosts.hosts[i], ssh)) say(fmt::format("{}: undo: {}", hosts.hosts[i].name, line));
    } catch (const Error& e) {
      left += fmt::format("; NOT undone on {}: {} (run `geotrain real down` when it is back)", hosts.hosts[i].name, e.what());
    }
  }
  return left;
}

}  // namespace

ApplyResult real_apply(const RealPlan& plan, const HostsFile& hosts, const HostNetwork& net,
                       const ApplyOptions& options, const Say& say) {
  const SshOptions& ssh = options.measure_options.ssh;
  // 1. Checks, all hosts, nothing changed.
  std::vector<HostCheck> checks;
  std::vector<std::string> problems;
  for (const auto& p : plan.hosts) {
    const auto r = ssh_run_checked(p.host, check_script(p.host, sysctl_names(p)), "the checks", {"", kApplyScriptTimeout}, ssh);
    checks.push_back(parse_check(r.out));
    CheckNeeds needs;
    needs.delayer = options.netem != NetemChoice::yes;
    needs.measure = options.measure;
    needs.force = options.force;
    for (const auto& problem : check_problems(checks.back(), p.host, needs))
      problems.push_back(host_label(p.host) + ": " + problem);
    if (const auto v = version_problem(checks.back().version, GEOTRAIN_VERSION, p.host); !v.empty())
      problems.push_back(host_label(p.host) + ": " + v);
    if (options.netem == NetemChoice::yes && !checks.back().netem)
      problems.push_back(host_label(p.host) + ": no sch_netem in its kernel (expected --netem no or auto: the delayer)");
    for (const auto& w : check_warnings(checks.back(), p.host)) say(fmt::format("{}: warning: {}", p.host.name, w));
  }
  if (!problems.empty()) {
    std::string text = fmt::format("{} problem(s), nothing was changed on any host:", problems.size());
    for (const auto& p : problems) text += "\n  " + p;
    throw Error(text);
  }

  // 2. The variant.
  bool all_netem = true;
  for (const auto& c : checks) all_netem = all_netem && c.netem;
  ApplyResult result;
  result.netem = options.netem == NetemChoice::yes || (options.netem == NetemChoice::auto_detect && all_netem);
  say(fmt::format("delay by {}{}", result.netem ? "netem" : "geotrain-delayer",
                  options.netem == NetemChoice::auto_detect
                      ? (all_netem ? " (every host has sch_netem)" : " (not every host has sch_netem)")
                      : ""));

  // 3. Host by host, undone everywhere on the first failure.
  for (std::size_t i = 0; i < plan.hosts.size(); ++i) {
    const HostPlan& p = plan.hosts[i];
    const HostState state = state_of(plan, p, checks[i], result.netem);
    const std::string script =
        apply_script(p.host, p.sysctls, result.netem ? p.netem : p.delayer, !state.replaced_qdisc.empty());
    std::string failure;
    try {
      const auto r = ssh_run(p.host, script, {state_text(state), kApplyScriptTimeout}, ssh);
      if (r.status != 0) failure = host_label(p.host) + ": apply failed: " + last_line(r.err);
    } catch (const Error& e) {
      failure = e.what();
    }
    if (!failure.empty()) {
      say(fmt::format("{}: failed; undoing every host touched", p.host.name));
      throw Error(failure + undo_touched(hosts, i, ssh, say));
    }
    say(fmt::format("{}: applied ({} on {})", p.host.name, result.netem ? "netem" : "delayer", p.host.interface));
  }

  // 4. Measure.
  if (options.measure) {
    try {
      result.measures = measure_links(hosts, net, options.measure_options);
    } catch (const Error& e) {
      throw Error(std::string(e.what()) + " (measuring; the shaping stays applied: `geotrain real down` removes it)");
    }
  }
  return result;
}

}  // namespace geotrain::real
