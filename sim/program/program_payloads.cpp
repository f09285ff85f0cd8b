// What a transfer, collective or dynamic op may carry (Payload, program.hpp).
#include <fmt/format.h>

#include "sim/program/program_checks.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain::detail {

// An activation (gradient) names its micro-batch; nothing else does.
void check_transfer_payload(const Program& p, int r, int i, Payload payload, int micro_batch,
                            Problems& out) {
  if (payload == Payload::pseudo_gradient)
    out.add(fmt::format("{}: payload pseudo_gradient (expected activation, activation_grad, "
                        "gradients, weights or state: the pseudo-gradient is averaged by a "
                        "collective or dynamic op)", op_where(p, r, i)));
  const bool per_micro_batch = payload == Payload::activation || payload == Payload::activation_grad;
  if (per_micro_batch && micro_batch < 0)
    out.add(fmt::format("{}: payload {} without a micro_batch (expected >= 0)", op_where(p, r, i),
                        json_name(payload)));
  if (!per_micro_batch && micro_batch != -1)
    out.add(fmt::format("{}: payload {} with micro_batch {} (expected -1: only activations and "
                        "their gradients belong to a micro-batch)",
                        op_where(p, r, i), json_name(payload), micro_batch));
}

// Collectives reduce gradients, weights or the pseudo-gradient; dynamic ops average weights or
// the pseudo-gradient (a gradient there would be lost to the local optimizer step).
void check_averaged_payload(const Program& p, int r, int i, Payload payload, bool collective,
                            Problems& out) {
  const bool ok = payload == Payload::weights || payload == Payload::pseudo_gradient ||
                  (collective && payload == Payload::gradients);
  if (!ok)
    out.add(fmt::format("{}: payload {} (expected {}weights or pseudo_gradient)", op_where(p, r, i),
                        json_name(payload), collective ? "gradients, " : ""));
}

}  // namespace geotrain::detail
