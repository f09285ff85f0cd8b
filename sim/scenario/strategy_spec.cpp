#include <stdexcept>

#include "sim/scenario/scenario.hpp"

namespace geotrain {

namespace {
const ParamValue& param(const StrategySpec& s, const std::string& key) {
  auto it = s.params.find(key);
  if (it == s.params.end())
    throw std::out_of_range("strategy " + s.name + " has no parameter " + key);
  return it->second;
}
}  // namespace

std::int64_t StrategySpec::integer(const std::string& key) const {
  return std::get<std::int64_t>(param(*this, key));
}
double StrategySpec::number(const std::string& key) const {
  const auto& v = param(*this, key);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  return std::get<double>(v);
}
const std::string& StrategySpec::text(const std::string& key) const {
  return std::get<std::string>(param(*this, key));
}
bool StrategySpec::flag(const std::string& key) const { return std::get<bool>(param(*this, key)); }

}  // namespace geotrain
