// `geotrain devices`: a row per library device (the alias as "= its entry"), and --json with every
// field in SI units.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/device_library.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace devices_command_test {

namespace {

const std::string kGeotrain = GEOTRAIN_BINARY;

}  // namespace

TEST_CASE("geotrain devices prints the library as a table", "[cli][devices]") {
  const auto r = geotrain::test::sh(kGeotrain + " devices");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.rfind("name           fp32     tf32     bf16     fp16  memory bandwidth  eff.  source\n"
                    "             TFLOPS   TFLOPS   TFLOPS   TFLOPS     GiB      GB/s\n",
                    0) == 0);
  CHECK(r.out.find("\nV100           15.7     15.7     15.7      125      16       900   0.4  NVIDIA Tesla V100 GPU "
                   "Accelerator data sheet (SXM2 16 GB)\n") != std::string::npos);
  CHECK(r.out.find("\nA100           19.5      156      312      312      80      2039   0.4  = A100-80GB\n") !=
        std::string::npos);
  CHECK(r.out.find("\nL40S           91.6      183   362.05   362.05      48       864   0.4  NVIDIA L40S data "
                   "sheet (PCIe 48 GB GDDR6)\n") != std::string::npos);
  CHECK(r.out.find("\ncpu             0.1      0.1      0.1      0.1      16        20   0.5  no data sheet: nominal "
                   "figures\n") != std::string::npos);
  for (const auto& d : geotrain::device_library()) CHECK(r.out.find("\n" + d.figures.name + " ") != std::string::npos);
}

TEST_CASE("geotrain devices --json: every entry with its figures and source", "[cli][devices]") {
  const auto r = geotrain::test::sh(kGeotrain + " devices --json");
  INFO(r.out);
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["devices"].size() == geotrain::device_library().size());
  for (const auto& d : doc["devices"]) {
    const auto* entry = geotrain::library_device(d["name"].get<std::string>());
    REQUIRE(entry != nullptr);
    CHECK(d["fp32_flops"].get<double>() == entry->figures.peak_fp32_flops);
    CHECK(d["tf32_flops"].get<double>() == entry->figures.peak_tf32_flops);
    CHECK(d["bf16_flops"].get<double>() == entry->figures.peak_bf16_flops);
    CHECK(d["fp16_flops"].get<double>() == entry->figures.peak_fp16_flops);
    CHECK(d["memory_bytes"].get<double>() == entry->figures.memory_bytes);
    CHECK(d["memory_bandwidth_Bps"].get<double>() == entry->figures.memory_bandwidth_Bps);
    CHECK(d["url"] == entry->url);
    CHECK(d["alias_of"] == entry->alias_of);
  }
}

}  // namespace devices_command_test
