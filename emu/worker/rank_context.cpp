#include "emu/worker/rank_context.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"

namespace geotrain {

void RankContext::fail(int i, const std::string& what, bool timeout) const {
  const auto msg = fmt::format("rank {} step {} op {} ('{}'): {}", options.rank, step, i, op(i).label,
                               what.substr(0, what.find('\n')));
  if (timeout) throw TimeoutError(msg, options.timeout_s);
  throw Error(msg);
}

}  // namespace geotrain
