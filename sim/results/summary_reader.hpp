#pragma once
// Reads a run's summary.json back (summary_head.hpp writes its head): the JSON, and which
// executor wrote it, from its `format` ("geotrain-<executor>-summary").
#include <string>

#include <nlohmann/json.hpp>

namespace geotrain::results {

// <dir>/summary.json; throws InputError naming the file when it is missing or not JSON.
nlohmann::json read_summary(const std::string& dir);

// "sim", "emu", "real", ...: the executor named by the summary's format; "" when the format is
// not a geotrain summary.
std::string summary_executor(const nlohmann::json& summary);

// Executors whose runs are measurements (the emulator, real machines), as opposed to predictions.
bool is_measuring_executor(const std::string& executor);

}  // namespace geotrain::results
