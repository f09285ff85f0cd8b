#pragma once
// fmt-based logging with a category per module ("sim.engine", "emu.net") and a threshold per
// category, set from the command line: --log=sim.engine:debug,emu:info. Logs go to stderr and
// are for people; results are files.
#include <fmt/format.h>

#include <string>
#include <string_view>

namespace geotrain::log {

enum class Level { debug = 0, info = 1, warning = 2, error = 3, off = 4 };

// "cat:level,cat2:level" or just "level" for every category. Throws InputError when malformed.
void configure(const std::string& spec);
bool enabled(std::string_view category, Level level);
void write(std::string_view category, Level level, const std::string& message);

template <typename... Args>
void info(std::string_view category, fmt::format_string<Args...> f, Args&&... args) {
  if (enabled(category, Level::info)) write(category, Level::info, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void debug(std::string_view category, fmt::format_string<Args...> f, Args&&... args) {
  if (enabled(category, Level::debug)) write(category, Level::debug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void warning(std::string_view category, fmt::format_string<Args...> f, Args&&... args) {
  if (enabled(category, Level::warning)) write(category, Level::warning, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace geotrain::log
