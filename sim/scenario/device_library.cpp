#include "sim/scenario/device_library.hpp"

#include <algorithm>

// How the figures are read off the documents:
// - Dense rates: NVIDIA prints tensor-core TF32/BF16/FP16 "with sparsity" (2:4 structured) in
//   its Ampere and Hopper data sheets; dense training gets half of that. FP16 is with fp32
//   accumulate (what mixed-precision training uses). fp32 is the non-tensor (CUDA core) rate.
// - Memory: the data sheets' "80 GB" is the binary capacity of the HBM stacks (80 GiB; nvidia-smi
//   shows 81,920 MiB on an A100 80GB), so sizes are GiB, as the first built-in profiles had them.
//   Usable memory is lower (ECC, driver, CUDA context); the memory checks add that overhead.
// - Memory bandwidth: the data sheets' GB/s and TB/s are decimal.
// - Efficiency: 0.4, a typical share of peak for GPT training (not measured per card); `geotrain
//   profile --device-entry` measures a device's own (docs/devices.md).
// V100, A100 and H100 keep exactly the figures they had before the library existed (the
// prediction regression tests pin simulations that use them); A100 is the A100 80GB SXM.

namespace geotrain {

namespace {

constexpr double kLibraryGiB = 1024.0 * 1024 * 1024;

LibraryDevice sourced(DeviceProfile figures, std::string variant, std::string source, std::string url,
                      std::string note = "") {
  LibraryDevice d;
  d.figures = std::move(figures);
  d.variant = std::move(variant);
  d.source = std::move(source);
  d.url = std::move(url);
  d.note = std::move(note);
  return d;
}

std::vector<LibraryDevice> make_library() {
  std::vector<LibraryDevice> lib;
  // NVIDIA Tesla V100 SXM2 16 GB. "NVIDIA Tesla V100 GPU Accelerator" data sheet,
  // https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf
  // (V100 SXM2 column): 15.7 TFLOPS fp32, 125 TFLOPS tensor (fp16 in, fp32 accumulate), 16 GB
  // HBM2 at 900 GB/s. Volta has neither TF32 nor BF16 tensor cores: tf32 is plain fp32 and bf16
  // runs without tensor cores, so both take the fp32 peak (before the library, bf16 used the
  // fp16 tensor peak on every profile; no bundled scenario computes in bf16).
  lib.push_back(sourced({.name = "V100",
                         .peak_fp32_flops = 15.7e12,
                         .peak_tf32_flops = 15.7e12,
                         .peak_bf16_flops = 15.7e12,
                         .peak_fp16_flops = 125e12,
                         .memory_bytes = 16 * kLibraryGiB,
                         .memory_bandwidth_Bps = 900e9,
                         .efficiency = 0.4},
                        "SXM2 16 GB", "NVIDIA Tesla V100 GPU Accelerator data sheet",
                        "https://images.nvidia.com/content/technologies/volta/pdf/"
                        "volta-v100-datasheet-update-us-1165301-r5.pdf",
                        "no TF32/BF16 tensor cores: tf32 and bf16 = the fp32 peak"));
  // NVIDIA A100 40GB and 80GB SXM4. "NVIDIA A100 Tensor Core GPU" data sheet,
  // https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/
  //   nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf (A100 40GB SXM and A100 80GB SXM
  // columns): 19.5 TFLOPS fp32; TF32 156 (312 sparse); BF16 and FP16 312 (624 sparse); HBM2
  // 1,555 GB/s (40GB), HBM2e 2,039 GB/s (80GB).
  const std::string a100_sheet = "NVIDIA A100 Tensor Core GPU data sheet";
  const std::string a100_url =
      "https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/"
      "nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf";
  lib.push_back(sourced({.name = "A100-40GB",
                         .peak_fp32_flops = 19.5e12,
                         .peak_tf32_flops = 156e12,
                         .peak_bf16_flops = 312e12,
                         .peak_fp16_flops = 312e12,
                         .memory_bytes = 40 * kLibraryGiB,
                         .memory_bandwidth_Bps = 1555e9,
                         .efficiency = 0.4},
                        "SXM4 40 GB HBM2", a100_sheet, a100_url));
  lib.push_back(sourced({.name = "A100-80GB",
                         .peak_fp32_flops = 19.5e12,
                         .peak_tf32_flops = 156e12,
                         .peak_bf16_flops = 312e12,
                         .peak_fp16_flops = 312e12,
                         .memory_bytes = 80 * kLibraryGiB,
                         .memory_bandwidth_Bps = 2039e9,
                         .efficiency = 0.4},
                        "SXM4 80 GB HBM2e", a100_sheet, a100_url));
  // NVIDIA H100 SXM5 80 GB. "NVIDIA H100 Tensor Core GPU" data sheet,
  // https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (H100 SXM
  // column): 67 TFLOPS fp32; TF32 989, BF16/FP16 1,979 TFLOPS, both printed with sparsity,
  // hence 494.5 and 989.5 dense (the Hopper whitepaper's table: 494.7 and 989.4 at 1,830 MHz);
  // 80 GB HBM3 at 3.35 TB/s. BF16/FP16 stay at 989, the figure geotrain used before the
  // library (0.05 % below the data sheet's half; pinned predictions use it).
  lib.push_back(sourced({.name = "H100",
                         .peak_fp32_flops = 67e12,
                         .peak_tf32_flops = 494.5e12,
                         .peak_bf16_flops = 989e12,
                         .peak_fp16_flops = 989e12,
                         .memory_bytes = 80 * kLibraryGiB,
                         .memory_bandwidth_Bps = 3350e9,
                         .efficiency = 0.4},
                        "SXM5 80 GB HBM3", "NVIDIA H100 Tensor Core GPU data sheet",
                        "https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
                        "sparse figures halved; bf16/fp16 989 (geotrain's figure before the library; "
                        "the data sheet's half is 989.5)"));
  // NVIDIA H200 SXM 141 GB. "NVIDIA H200 Tensor Core GPU" data sheet / product page,
  // https://www.nvidia.com/en-us/data-center/h200/ (H200 SXM column): the H100 SXM's compute
  // (67 TFLOPS fp32; TF32 989, BF16/FP16 1,979 with sparsity) with 141 GB HBM3e at 4.8 TB/s.
  lib.push_back(sourced({.name = "H200",
                         .peak_fp32_flops = 67e12,
                         .peak_tf32_flops = 494.5e12,
                         .peak_bf16_flops = 989.5e12,
                         .peak_fp16_flops = 989.5e12,
                         .memory_bytes = 141 * kLibraryGiB,
                         .memory_bandwidth_Bps = 4800e9,
                         .efficiency = 0.4},
                        "SXM 141 GB HBM3e", "NVIDIA H200 Tensor Core GPU data sheet",
                        "https://www.nvidia.com/en-us/data-center/h200/", "sparse figures halved"));
  // NVIDIA L40S (PCIe, dual slot, 48 GB GDDR6 with ECC). "NVIDIA L40S" data sheet,
  // https://www.nvidia.com/en-us/data-center/l40s/ (the data sheet PDF is linked there):
  // 91.6 TFLOPS fp32; TF32 183 (366 sparse); BF16/FP16 362.05 (733 sparse); 864 GB/s.
  lib.push_back(sourced({.name = "L40S",
                         .peak_fp32_flops = 91.6e12,
                         .peak_tf32_flops = 183e12,
                         .peak_bf16_flops = 362.05e12,
                         .peak_fp16_flops = 362.05e12,
                         .memory_bytes = 48 * kLibraryGiB,
                         .memory_bandwidth_Bps = 864e9,
                         .efficiency = 0.4},
                        "PCIe 48 GB GDDR6", "NVIDIA L40S data sheet",
                        "https://www.nvidia.com/en-us/data-center/l40s/"));
  // NVIDIA GeForce RTX 4090 (24 GB GDDR6X). No data sheet: "NVIDIA Ada GPU Architecture"
  // whitepaper v2.01, appendix table of the RTX 4090,
  // https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf:
  // 82.6 TFLOPS fp32; TF32 82.6 (165.2 sparse); BF16, and FP16 with fp32 accumulate, 165.2
  // (330.4 sparse); FP16 with fp16 accumulate 330.3, which training does not use (GeForce
  // cards run fp32-accumulate tensor math at half rate); 1,008 GB/s.
  lib.push_back(sourced({.name = "RTX4090",
                         .peak_fp32_flops = 82.6e12,
                         .peak_tf32_flops = 82.6e12,
                         .peak_bf16_flops = 165.2e12,
                         .peak_fp16_flops = 165.2e12,
                         .memory_bytes = 24 * kLibraryGiB,
                         .memory_bandwidth_Bps = 1008e9,
                         .efficiency = 0.4},
                        "PCIe 24 GB GDDR6X", "NVIDIA Ada GPU Architecture whitepaper (v2.01), RTX 4090 table",
                        "https://images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf",
                        "fp16/bf16 with fp32 accumulate (330.3 with fp16 accumulate)"));
  // AMD Instinct MI300X (OAM, 192 GB HBM3). "AMD Instinct MI300X Accelerator" data sheet,
  // https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf:
  // fp32 163.4 TFLOPS (vector and matrix alike); TF32 653.7; BF16/FP16 1,307.4 dense (2,614.9
  // with sparsity); 5.3 TB/s peak memory bandwidth.
  lib.push_back(sourced({.name = "MI300X",
                         .peak_fp32_flops = 163.4e12,
                         .peak_tf32_flops = 653.7e12,
                         .peak_bf16_flops = 1307.4e12,
                         .peak_fp16_flops = 1307.4e12,
                         .memory_bytes = 192 * kLibraryGiB,
                         .memory_bandwidth_Bps = 5300e9,
                         .efficiency = 0.4},
                        "OAM 192 GB HBM3", "AMD Instinct MI300X Accelerator data sheet",
                        "https://www.amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/"
                        "amd-instinct-mi300x-data-sheet.pdf"));
  // cpu: no data sheet. A nominal desktop core for the emulator's CPU scenarios, unchanged since
  // the first built-in profiles: 100 GFLOPS at every precision, 16 GiB, 20 GB/s, efficiency
  // 0.5. A real CPU's rate: `geotrain profile --device-entry NAME --like cpu` (docs/devices.md).
  lib.push_back(sourced({.name = "cpu",
                         .peak_fp32_flops = 100e9,
                         .peak_tf32_flops = 100e9,
                         .peak_bf16_flops = 100e9,
                         .peak_fp16_flops = 100e9,
                         .memory_bytes = 16 * kLibraryGiB,
                         .memory_bandwidth_Bps = 20e9,
                         .efficiency = 0.5},
                        "nominal", "no data sheet: nominal figures", "",
                        "not a measurement: measure with geotrain profile --device-entry"));
  // A100 alone has always meant the 80 GB SXM card.
  const auto target = std::find_if(lib.begin(), lib.end(),
                                   [](const LibraryDevice& d) { return d.figures.name == "A100-80GB"; });
  LibraryDevice alias = *target;
  alias.figures.name = "A100";
  alias.alias_of = "A100-80GB";
  lib.insert(target + 1, alias);
  return lib;
}

}  // namespace

const std::vector<LibraryDevice>& device_library() {
  static const std::vector<LibraryDevice> library = make_library();
  return library;
}

const LibraryDevice* library_device(std::string_view name) {
  for (const auto& d : device_library())
    if (d.figures.name == name) return &d;
  return nullptr;
}

std::vector<std::string> library_device_names() {
  std::vector<std::string> names;
  for (const auto& d : device_library()) names.push_back(d.figures.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace geotrain
