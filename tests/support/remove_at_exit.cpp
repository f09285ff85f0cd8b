#include "remove_at_exit.hpp"

#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace geotrain::test {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::pair<pid_t, std::string>> paths;
  ~Registry() {
    std::error_code ec;
    for (const auto& [pid, path] : paths)
      if (pid == ::getpid()) std::filesystem::remove_all(path, ec);
  }
};

Registry& registry() {
  static Registry r;  // constructed on first use, destroyed at exit after the tests ran
  return r;
}

}  // namespace

void remove_at_exit(const std::string& path) {
  auto& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  r.paths.emplace_back(::getpid(), path);
}

std::string process_temp_path(const std::string& name) {
  const auto path = (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()))).string();
  remove_at_exit(path);
  return path;
}

}  // namespace geotrain::test
