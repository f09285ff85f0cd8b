// geotrain devices [--json]: the device library (sim/scenario/device_library.hpp), the devices a
// scenario can name as a profile or start one from (`like:`), with their data-sheet figures and
// where they come from. The table is for people; --json keeps SI units and every field.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "sim/scenario/device_library.hpp"

namespace geotrain::cli {

namespace {

constexpr double kDevicesGiB = 1024.0 * 1024 * 1024;

std::string devices_table() {
  std::string out = fmt::format("{:<10} {:>8} {:>8} {:>8} {:>8} {:>7} {:>9} {:>5}  {}\n", "name", "fp32", "tf32",
                                "bf16", "fp16", "memory", "bandwidth", "eff.", "source");
  out += fmt::format("{:<10} {:>8} {:>8} {:>8} {:>8} {:>7} {:>9}\n", "", "TFLOPS", "TFLOPS", "TFLOPS", "TFLOPS",
                     "GiB", "GB/s");
  for (const auto& d : device_library()) {
    const DeviceProfile& f = d.figures;
    std::string source = d.source;
    if (!d.alias_of.empty()) source = "= " + d.alias_of;
    else if (!d.url.empty()) source += " (" + d.variant + ")";
    out += fmt::format("{:<10} {:>8g} {:>8g} {:>8g} {:>8g} {:>7g} {:>9g} {:>5g}  {}\n", f.name,
                       f.peak_fp32_flops / 1e12, f.peak_tf32_flops / 1e12, f.peak_bf16_flops / 1e12,
                       f.peak_fp16_flops / 1e12, f.memory_bytes / kDevicesGiB, f.memory_bandwidth_Bps / 1e9,
                       f.efficiency, source);
  }
  out += "Peak dense rates (tensor cores where the device has them, without sparsity); efficiency: the share\n"
         "of peak the compute model assumes. URLs and notes: geotrain devices --json, docs/devices.md.\n";
  return out;
}

std::string devices_json() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : device_library()) {
    const DeviceProfile& f = d.figures;
    list.push_back({{"name", f.name},
                    {"alias_of", d.alias_of},
                    {"fp32_flops", f.peak_fp32_flops},
                    {"tf32_flops", f.peak_tf32_flops},
                    {"bf16_flops", f.peak_bf16_flops},
                    {"fp16_flops", f.peak_fp16_flops},
                    {"memory_bytes", f.memory_bytes},
                    {"memory_bandwidth_Bps", f.memory_bandwidth_Bps},
                    {"efficiency", f.efficiency},
                    {"variant", d.variant},
                    {"source", d.source},
                    {"url", d.url},
                    {"note", d.note}});
  }
  return nlohmann::json{{"devices", list}}.dump(1) + "\n";
}

}  // namespace

void add_devices_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("devices", "list the device library: peak rates, memory and sources of the "
                                            "devices a scenario can name");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "every field, SI units (flop/s, bytes, bytes/s)");
  cmd->callback([&action, json] {
    action = [json] {
      fmt::print("{}", *json ? devices_json() : devices_table());
      return 0;
    };
  });
}

}  // namespace geotrain::cli
