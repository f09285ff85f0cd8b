#include "real/plan_json.hpp"

namespace geotrain::real {

namespace {

nlohmann::json command_json(const emu::Command& c) {
  nlohmann::json argv = nlohmann::json::array();
  if (c.tool == emu::Tool::stop_delayer) return {{"stop_delayer", true}, {"text", c.to_string()}};
  if (c.tool != emu::Tool::delayer) argv.push_back(emu::tool_name(c.tool));
  for (const auto& a : c.args) argv.push_back(a);
  return {{"argv", argv}, {"text", c.to_string()}};
}

nlohmann::json commands_json(const std::vector<emu::Command>& list) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : list) out.push_back(command_json(c));
  return out;
}

nlohmann::json host_json(const HostPlan& p) {
  const HostSpec& h = p.host;
  nlohmann::json workers = nlohmann::json::array();
  for (const auto& w : p.workers) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [k, v] : w.env) env[k] = v;
    workers.push_back({{"rank", w.rank}, {"device", w.device}, {"env", env}, {"argv", w.argv}, {"line", w.line()}});
  }
  return {{"name", h.name},
          {"ssh", {{"user", h.address.user}, {"host", h.address.host}, {"port", h.address.port},
                   {"options", h.ssh_options}}},
          {"interface", h.interface},
          {"address", h.data_address},
          {"device", h.device},
          {"ranks", h.ranks},
          {"workdir", h.workdir},
          {"tcp_buffer_bytes", p.tcp_buffer_bytes},
          {"sysctls", commands_json(p.sysctls)},
          {"shaping", {{"netem", commands_json(p.netem)}, {"delayer", commands_json(p.delayer)}}},
          {"undo", {{"netem", commands_json(p.undo_netem)}, {"delayer", commands_json(p.undo_delayer)}}},
          {"workers", workers},
          {"notes", p.notes}};
}

}  // namespace

nlohmann::json real_plan_json(const RealPlan& plan) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& h : plan.hosts) hosts.push_back(host_json(h));
  const auto& t = plan.timeout_inputs;
  return {{"scenario", plan.scenario},
          {"hosts_file", plan.hosts_path},
          {"ranks", plan.ranks},
          {"world_size", plan.world_size},
          {"netem", netem_choice_name(plan.netem)},
          {"backend", plan.backend},
          {"master", {{"addr", plan.master_addr}, {"port", plan.master_port}}},
          {"timeout", {{"seconds", plan.timeout_s}, {"max_round_trip_s", t.max_round_trip_s},
                       {"largest_message_bytes", t.largest_message_bytes},
                       {"min_bandwidth_Bps", t.min_bandwidth_Bps}, {"world_size", t.world_size}}},
          {"warnings", plan.warnings},
          {"hosts", hosts}};
}

}  // namespace geotrain::real
