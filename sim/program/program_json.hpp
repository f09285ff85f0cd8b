#pragma once
// Program <-> JSON, lossless for every op type of program.hpp. The launcher hands each worker
// its Program this way (emu/worker reads it back), and tests compare Programs through it.
//
// Format (one object):
//   {"format": "geotrain-program", "version": 1, "strategy": "...", "world_size": N,
//    "device_of_rank": [...], "sequences_per_iteration": x, "tokens_per_iteration": x,
//    "model_flops_per_iteration": x,
//    "groups": [{"id": 0, "name": "world", "ranks": [0, 1]}],
//    "ranks": [[{"op": "compute", "label": "fwd s0 mb0", "nonblocking": false,
//                "kind": "forward", "stage": 0, ...}, ...], ...]}
// A compressed collective adds "compression": {"kind", "block", "density", "error_feedback",
// "element_bytes"}; it is left out for kind none.
// Every field of every op is written, so reading back yields an equal Program. Doubles are
// written with full precision (nlohmann prints the shortest round-trip form).
#include <string>

#include <nlohmann/json.hpp>

#include "sim/program/program.hpp"

namespace geotrain {

nlohmann::json program_to_json(const Program& program);

// Throws InputError naming `source` (a file name or "<json>"), the JSON path and the value for
// every problem: missing keys, wrong types, unknown op kinds / enum names.
Program program_from_json(const nlohmann::json& j, const std::string& source = "<json>");

void write_program_json(const Program& program, const std::string& path);
Program read_program_json(const std::string& path);

// The names the file format uses ("allreduce", "halving_doubling", ...).
const char* json_name(ComputeKind k);
const char* json_name(CollectiveKind k);
const char* json_name(CollectiveAlgorithm a);
const char* json_name(Payload p);

// Field-by-field equality (Program has no operator==; tests and the worker use this).
bool programs_equal(const Program& a, const Program& b);

}  // namespace geotrain
