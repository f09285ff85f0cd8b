// devices: how many devices, of which profile, in which region.
//   devices: {count: 64, profile: V100}
//   devices: {count: 1024, regions: [Oregon, Tokyo, London]}     # equal consecutive blocks
//   devices: {groups: [{region: Oregon, count: 8, profile: A100}, ...]}
//   devices.overrides: [{ids: [3, 4], profile: A100, slowdown: 1.5}]
//   devices.profiles: {my-gpu: {fp16: 100TFLOPS, fp32: 20TFLOPS, memory: 24GiB, efficiency: 0.4}}
//   devices.profiles: {my-h100: {like: H100, efficiency: 0.31}}         # a library entry, changed
#include <fmt/format.h>

#include "sim/common/did_you_mean.hpp"
#include "sim/scenario/device_library.hpp"
#include "sim/scenario/sections.hpp"

namespace geotrain::sections {

namespace {

constexpr std::int64_t kMaxDevices = 1'000'000;

// A profile the scenario declares: its own figures, or a library entry's (`like:`) with any of
// them overridden. Without `like`, fp32 and memory are required, tf32 and fp16 default to fp32,
// bf16 to fp16, and an unknown memory bandwidth leaves the compute model's 0.06 B/flop rule.
void parse_custom_profile(YamlSection& p, const std::string& name, Scenario& out) {
  const bool has_like = p.has("like");
  const auto like = p.choice("like", library_device_names(), "library device");
  auto fp32 = p.flops("fp32", !has_like);
  auto tf32 = p.flops("tf32");
  auto bf16 = p.flops("bf16");
  auto fp16 = p.flops("fp16");
  auto memory = p.bytes("memory", ranges::kDeviceMemory, !has_like);
  auto bandwidth = p.bandwidth_Bps("memory_bandwidth", ranges::kMemoryBandwidth);
  auto efficiency = p.number("efficiency", kMinDeviceEfficiency, kMaxDeviceEfficiency);
  p.finish();
  DeviceProfile profile;
  if (like) {
    profile = library_device(*like)->figures;
  } else if (!has_like && fp32) {
    profile.peak_tf32_flops = profile.peak_fp16_flops = *fp32;
    profile.peak_bf16_flops = fp16.value_or(*fp32);
  }
  profile.name = name;
  if (fp32) profile.peak_fp32_flops = *fp32;
  if (tf32) profile.peak_tf32_flops = *tf32;
  if (bf16) profile.peak_bf16_flops = *bf16;
  if (fp16) profile.peak_fp16_flops = *fp16;
  if (memory) profile.memory_bytes = *memory;
  if (bandwidth) profile.memory_bandwidth_Bps = *bandwidth;
  if (efficiency) profile.efficiency = *efficiency;
  // Kept even when a figure was refused (the scenario is rejected then anyway), so a device
  // naming the profile is not reported a second time, as an unknown profile.
  out.profiles[name] = profile;
}

// Profiles declared in the scenario, on top of the built-in ones (the device library).
void parse_custom_profiles(Context& ctx, const YAML::Node& node, const std::string& path,
                           Scenario& out) {
  out.profiles = builtin_device_profiles();
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    ctx.diag.error(line_of(node), path, "expected a mapping of profile names to profiles");
    return;
  }
  for (const auto& item : node) {
    const std::string name = scalar_text(item.first);
    YamlSection p(ctx.diag, item.second, path + "." + name);
    parse_custom_profile(p, name, out);
  }
}

std::optional<std::string> profile_name(YamlSection& s, const Scenario& out) {
  std::vector<std::string> names;
  for (const auto& [name, p] : out.profiles) names.push_back(name);
  return s.choice("profile", names, "device profile");
}

void parse_overrides(Context& ctx, const YAML::Node& list, const std::string& path, Scenario& out) {
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) {
    ctx.diag.error(line_of(list), path, "expected a list of {ids: [...], profile/slowdown}");
    return;
  }
  for (std::size_t k = 0; k < list.size(); ++k) {
    YamlSection o(ctx.diag, list[k], fmt::format("{}[{}]", path, k));
    std::vector<std::int64_t> ids;
    if (auto one = o.integer("id", 0, kMaxDevices)) ids.push_back(*one);
    const YAML::Node many = o.raw("ids");
    if (many.IsDefined() && many.IsSequence())
      for (const auto& id : many) ids.push_back(id.as<std::int64_t>(-1));
    auto profile = profile_name(o, out);
    auto slowdown = o.number("slowdown", 1e-3, 1e6);
    o.finish();
    if (ids.empty()) ctx.diag.error(o.line(), o.path(), "names no device (expected id or ids)");
    for (auto id : ids) {
      if (id < 0 || id >= static_cast<std::int64_t>(out.devices.size())) {
        ctx.diag.error(o.line(), o.path() + ".ids", std::to_string(id),
                       fmt::format("no such device (expected 0 to {})", out.devices.size() - 1));
        continue;
      }
      auto& d = out.devices[static_cast<std::size_t>(id)];
      if (profile) d.profile = *profile;
      if (slowdown) d.slowdown = *slowdown;
    }
  }
}

}  // namespace

DeviceRegions parse_devices(Context& ctx, YamlSection s, Scenario& out) {
  DeviceRegions regions;
  regions.line = s.line();
  if (!s.present()) {
    if (s.given()) return {};
    ctx.diag.error(0, "devices", "missing section (expected e.g. devices: {count: 8, profile: V100})");
    return regions;
  }
  parse_custom_profiles(ctx, s.raw("profiles"), s.key_path("profiles"), out);
  const std::string default_profile = profile_name(s, out).value_or("V100");
  auto count = s.integer("count", 1, kMaxDevices);
  regions.count_line = s.line();
  if (count) {
    regions.count_line = s.line_of("count");
    regions.count_key = s.key_path("count");
    regions.count_text = std::to_string(*count);
  }
  const YAML::Node region_list = s.raw("regions");
  const YAML::Node groups = s.raw("groups");

  auto add = [&](int n, const std::string& profile, const std::string& region) {
    for (int i = 0; i < n; ++i) {
      out.devices.push_back({static_cast<int>(out.devices.size()), profile, 1.0});
      if (!region.empty()) regions.region_of_device.push_back(region);
    }
  };

  if (groups.IsDefined() && !groups.IsNull()) {
    if (count) ctx.diag.error(s.line_of("count"), s.key_path("count"),
                              "give either count or groups, not both");
    if (!groups.IsSequence()) {
      ctx.diag.error(line_of(groups), s.key_path("groups"),
                     "expected a list of {region, count, profile}");
    } else {
      for (std::size_t k = 0; k < groups.size(); ++k) {
        YamlSection g(ctx.diag, groups[k], fmt::format("devices.groups[{}]", k));
        auto region = g.text("region", true);
        auto n = g.integer("count", 1, kMaxDevices, true);
        auto profile = profile_name(g, out);
        g.finish();
        if (region && n) add(static_cast<int>(*n), profile.value_or(default_profile), *region);
      }
    }
  } else if (count) {
    std::vector<std::string> names;
    if (region_list.IsDefined() && !region_list.IsNull()) {
      if (!region_list.IsSequence() || region_list.size() == 0)
        ctx.diag.error(line_of(region_list), s.key_path("regions"),
                       "expected a non-empty list of region names");
      else
        for (const auto& r : region_list) names.push_back(scalar_text(r));
    }
    for (std::int64_t i = 0; i < *count; ++i) {
      out.devices.push_back({static_cast<int>(i), default_profile, 1.0});
      if (!names.empty())
        regions.region_of_device.push_back(
            names[static_cast<std::size_t>(i * static_cast<std::int64_t>(names.size()) / *count)]);
    }
  } else if (!s.has("count")) {
    ctx.diag.error(s.line(), "devices", "missing count (expected count: N or a groups list)");
  }
  parse_overrides(ctx, s.raw("overrides"), s.key_path("overrides"), out);
  if (regions.count_text.empty()) regions.count_text = std::to_string(out.devices.size());
  s.finish();
  return regions;
}

}  // namespace geotrain::sections
