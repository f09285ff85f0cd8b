// The device library: the names scenarios had before it keep their figures to the bit (pinned
// predictions use them), A100 is the A100 80GB, each new entry carries its data-sheet figures and
// a source, and every entry is a built-in profile.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "sim/scenario/device_library.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace device_library_test {

using namespace geotrain;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

const DeviceProfile& figures(const std::string& name) {
  const LibraryDevice* d = library_device(name);
  REQUIRE(d != nullptr);
  return d->figures;
}

}  // namespace

TEST_CASE("device library: V100, A100, H100 and cpu keep the figures they had before it", "[scenario][devices]") {
  const auto& v100 = figures("V100");
  CHECK(v100.peak_fp32_flops == 15.7e12);
  CHECK(v100.peak_fp16_flops == 125e12);
  CHECK(v100.memory_bytes == 16 * kGiB);
  CHECK(v100.memory_bandwidth_Bps == 900e9);
  CHECK(v100.efficiency == 0.4);
  const auto& a100 = figures("A100");
  CHECK(a100.peak_fp32_flops == 19.5e12);
  CHECK(a100.peak_fp16_flops == 312e12);
  CHECK(a100.peak_bf16_flops == 312e12);
  CHECK(a100.memory_bytes == 80 * kGiB);
  CHECK(a100.memory_bandwidth_Bps == 2039e9);
  CHECK(a100.efficiency == 0.4);
  const auto& h100 = figures("H100");
  CHECK(h100.peak_fp32_flops == 67e12);
  CHECK(h100.peak_fp16_flops == 989e12);
  CHECK(h100.peak_bf16_flops == 989e12);
  CHECK(h100.memory_bytes == 80 * kGiB);
  CHECK(h100.memory_bandwidth_Bps == 3350e9);
  CHECK(h100.efficiency == 0.4);
  const auto& cpu = figures("cpu");
  CHECK(cpu.peak_fp32_flops == 100e9);
  CHECK(cpu.peak_fp16_flops == 100e9);
  CHECK(cpu.memory_bytes == 16 * kGiB);
  CHECK(cpu.memory_bandwidth_Bps == 20e9);
  CHECK(cpu.efficiency == 0.5);
}

TEST_CASE("device library: A100 is an alias of the A100 80GB with the same figures", "[scenario][devices]") {
  const LibraryDevice* alias = library_device("A100");
  REQUIRE(alias != nullptr);
  CHECK(alias->alias_of == "A100-80GB");
  const auto& a = alias->figures;
  const auto& b = figures("A100-80GB");
  CHECK(a.peak_fp32_flops == b.peak_fp32_flops);
  CHECK(a.peak_tf32_flops == b.peak_tf32_flops);
  CHECK(a.peak_bf16_flops == b.peak_bf16_flops);
  CHECK(a.peak_fp16_flops == b.peak_fp16_flops);
  CHECK(a.memory_bytes == b.memory_bytes);
  CHECK(a.memory_bandwidth_Bps == b.memory_bandwidth_Bps);
  CHECK(a.efficiency == b.efficiency);
  CHECK(figures("A100-40GB").memory_bandwidth_Bps == 1555e9);
  CHECK(figures("A100-40GB").memory_bytes == 40 * kGiB);
}

TEST_CASE("device library: the data-sheet figures of the newer devices, dense", "[scenario][devices]") {
  const auto& h200 = figures("H200");
  CHECK(h200.peak_fp32_flops == 67e12);
  CHECK(h200.peak_tf32_flops == 494.5e12);
  CHECK(h200.peak_bf16_flops == 989.5e12);
  CHECK(h200.memory_bytes == 141 * kGiB);
  CHECK(h200.memory_bandwidth_Bps == 4.8e12);
  const auto& l40s = figures("L40S");
  CHECK(l40s.peak_fp32_flops == 91.6e12);
  CHECK(l40s.peak_tf32_flops == 183e12);
  CHECK(l40s.peak_fp16_flops == 362.05e12);
  CHECK(l40s.memory_bandwidth_Bps == 864e9);
  const auto& rtx = figures("RTX4090");
  CHECK(rtx.peak_fp32_flops == 82.6e12);
  CHECK(rtx.peak_tf32_flops == 82.6e12);
  CHECK(rtx.peak_fp16_flops == 165.2e12);  // fp32 accumulate, as training runs
  CHECK(rtx.memory_bytes == 24 * kGiB);
  const auto& mi300x = figures("MI300X");
  CHECK(mi300x.peak_fp32_flops == 163.4e12);
  CHECK(mi300x.peak_tf32_flops == 653.7e12);
  CHECK(mi300x.peak_bf16_flops == 1307.4e12);
  CHECK(mi300x.memory_bytes == 192 * kGiB);
  CHECK(mi300x.memory_bandwidth_Bps == 5.3e12);
}

TEST_CASE("device library: every entry is sourced, ordered fp32 <= tf32 <= fp16 and a built-in profile",
          "[scenario][devices]") {
  std::set<std::string> seen;
  for (const auto& d : device_library()) {
    const DeviceProfile& f = d.figures;
    INFO(f.name);
    CHECK(seen.insert(f.name).second);
    CHECK_FALSE(d.variant.empty());
    CHECK_FALSE(d.source.empty());
    if (f.name != "cpu") CHECK(d.url.rfind("https://", 0) == 0);
    CHECK(f.peak_fp32_flops > 0);
    CHECK(f.peak_tf32_flops >= f.peak_fp32_flops);
    CHECK(f.peak_fp16_flops >= f.peak_tf32_flops);
    CHECK(f.peak_bf16_flops >= f.peak_fp32_flops);
    CHECK(f.memory_bandwidth_Bps > 0);
    CHECK(f.efficiency == (f.name == "cpu" ? 0.5 : 0.4));
    const auto& builtin = builtin_device_profiles();
    REQUIRE(builtin.count(f.name) == 1);
    CHECK(builtin.at(f.name).peak_fp16_flops == f.peak_fp16_flops);
  }
  CHECK(builtin_device_profiles().size() == seen.size());
  const auto names = library_device_names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(names.size() == seen.size());
  CHECK(library_device("A10") == nullptr);
}

TEST_CASE("device library: bf16 takes the bf16 peak, V100's is its fp32 peak, a profile without one the fp16 peak",
          "[scenario][devices]") {
  CHECK(figures("V100").peak_flops(DType::bf16) == 15.7e12);  // no bf16 tensor cores on Volta
  CHECK(figures("V100").peak_flops(DType::fp16) == 125e12);
  CHECK(figures("A100").peak_flops(DType::bf16) == 312e12);
  CHECK(figures("MI300X").peak_flops(DType::fp32) == 163.4e12);
  DeviceProfile older;  // built in code before bf16 existed
  older.peak_fp32_flops = 10e12;
  older.peak_fp16_flops = 40e12;
  CHECK(older.peak_flops(DType::bf16) == 40e12);
}

}  // namespace device_library_test
