#pragma once
// DIR/sweep.json: what a sweep ran (the spec as parsed, a fingerprint of the base scenario), with
// which geotrain (version, git sha), the base scenario's seed, the shard and the counts. It holds
// no time stamps or host names, so the same spec and build give the same bytes.
#include <nlohmann/json.hpp>
#include <string>

#include "sim/sweep/expansion.hpp"
#include "sim/sweep/sweep_spec.hpp"
#include "sim/sweep/sweep_table.hpp"

namespace geotrain::sweep {

nlohmann::ordered_json spec_json(const SweepSpec& spec, const std::string& base_text);

void write_sweep_json(const std::string& path, const SweepSpec& spec, const std::string& base_text,
                      const Shard& shard, const TableCounts& counts);

// The `spec` object of a sweep.json; throws InputError when the file is not one.
nlohmann::ordered_json read_spec_json(const std::string& sweep_json_path);

}  // namespace geotrain::sweep
