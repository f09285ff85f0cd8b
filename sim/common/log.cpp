#include "sim/common/log.hpp"

#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>

#include "sim/common/error.hpp"

namespace geotrain::log {

namespace {
struct Config {
  Level default_level = Level::warning;
  std::map<std::string, Level, std::less<>> categories;
  std::mutex mutex;
};
Config& config() {
  static Config c;
  return c;
}
Level parse_level(const std::string& s) {
  if (s == "debug") return Level::debug;
  if (s == "info") return Level::info;
  if (s == "warning") return Level::warning;
  if (s == "error") return Level::error;
  if (s == "off") return Level::off;
  throw InputError("--log: unknown level '" + s + "' (expected debug, info, warning, error, off)");
}
const char* name(Level l) {
  static const char* names[] = {"debug", "info", "warning", "error", "off"};
  return names[static_cast<int>(l)];
}
}  // namespace

void configure(const std::string& spec) {
  std::stringstream in(spec);
  for (std::string item; std::getline(in, item, ',');) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) config().default_level = parse_level(item);
    else config().categories[item.substr(0, colon)] = parse_level(item.substr(colon + 1));
  }
}

bool enabled(std::string_view category, Level level) {
  // The longest configured prefix wins: "sim" covers "sim.engine" unless that is set itself.
  Level threshold = config().default_level;
  std::size_t best = 0;
  for (const auto& [cat, l] : config().categories) {
    if (category.substr(0, cat.size()) == cat && cat.size() >= best &&
        (category.size() == cat.size() || category[cat.size()] == '.')) {
      best = cat.size();
      threshold = l;
    }
  }
  return level >= threshold;
}

void write(std::string_view category, Level level, const std::string& message) {
  std::lock_guard lock(config().mutex);
  std::fprintf(stderr, "[%.*s] %s: %s\n", static_cast<int>(category.size()), category.data(),
               name(level), message.c_str());
}

}  // namespace geotrain::log
