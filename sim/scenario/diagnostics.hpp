#pragma once
// Collects every problem found in a scenario, one line each, in the house format:
//   scenarios/x.yaml:14: network.bandwidth = '10Gbs': unknown unit 'Gbs' (expected e.g. ...)
// so that a user sees all problems at once.
#include <string>
#include <vector>

namespace geotrain {

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}

  // line is 1-based; 0 means "no line" (the whole file, or a --set override).
  void error(int line, const std::string& key_path, const std::string& value,
             const std::string& message);
  // A problem not tied to one value (e.g. two sections that disagree).
  void error(int line, const std::string& key_path, const std::string& message);

  bool ok() const { return lines_.empty(); }
  const std::vector<std::string>& lines() const { return lines_; }
  const std::string& file() const { return file_; }
  // Throws ScenarioError with every line collected so far, if any.
  void throw_if_errors() const;

 private:
  std::string where(int line) const;
  std::string file_;
  std::vector<std::string> lines_;
};

}  // namespace geotrain
