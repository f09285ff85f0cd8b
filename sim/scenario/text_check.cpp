#include "sim/scenario/text_check.hpp"

#include <fmt/format.h>

#include "sim/common/text_rules.hpp"
#include "sim/scenario/yaml_section.hpp"

namespace geotrain {

namespace {

// Deeply nested documents are refused by the parser long before this depth matters; the limit
// only keeps a pathological tree from exhausting the stack here.
constexpr int kMaxDepth = 64;

void check(const YAML::Node& node, const std::string& path, Diagnostics& diag, int depth) {
  if (depth > kMaxDepth) return;
  if (node.IsScalar()) {
    if (auto problem = text_problem(node.Scalar()))
      diag.error(line_of(node), path.empty() ? "(top level)" : path, node.Scalar(), *problem);
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check(node[i], fmt::format("{}[{}]", path, i), diag, depth + 1);
  } else if (node.IsMap()) {
    for (const auto& item : node) {
      const std::string key = scalar_text(item.first);
      const std::string key_path = path.empty() ? key : path + "." + key;
      if (auto problem = text_problem(key)) {
        diag.error(line_of(item.first), key_path, fmt::format("the key {}", *problem));
        continue;
      }
      check(item.second, key_path, diag, depth + 1);
    }
  }
}

}  // namespace

void check_scenario_text(const YAML::Node& root, Diagnostics& diag) {
  check(root, "", diag, 0);
}

}  // namespace geotrain
