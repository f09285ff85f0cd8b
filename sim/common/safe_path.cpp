#include "sim/common/safe_path.hpp"

#include <fmt/format.h>

#include <iterator>

#include "sim/common/error.hpp"

namespace fs = std::filesystem;

namespace geotrain {

namespace {

// The path with symlinks resolved as far as it exists (weakly_canonical), made absolute first so
// that roots given relative to the working directory compare with their children.
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(p), ec);
  if (ec) r = fs::absolute(p).lexically_normal();
  return r;
}

bool is_prefix(const fs::path& root, const fs::path& path) {
  auto r = root.begin(), p = path.begin();
  for (; r != root.end(); ++r, ++p) {
    if (r->empty() && std::next(r) == root.end()) break;  // trailing separator of the root
    if (p == path.end() || *r != *p) return false;
  }
  return true;
}

}  // namespace

bool stays_under(const fs::path& root, const fs::path& path) {
  const fs::path lexical_root = fs::absolute(root).lexically_normal();
  const fs::path lexical = fs::absolute(path).lexically_normal();
  return is_prefix(lexical_root, lexical) && is_prefix(resolved(root), resolved(path));
}

fs::path path_under(const fs::path& root, const std::vector<std::string>& components,
                    const std::string& what) {
  fs::path joined = root;
  std::string relative;
  for (const auto& c : components) relative += (relative.empty() ? "" : "/") + c;
  for (const auto& c : components) {
    if (c.empty())
      throw InputError(fmt::format("{} = '': an empty path component (expected a name)", what));
    if (c.find('\0') != std::string::npos || fs::path(c).is_absolute())
      throw InputError(
          fmt::format("{} = '{}': an absolute path where a name under {} was "
                      "expected",
                      what, c, root.string()));
    joined /= c;
  }
  if (!stays_under(root, joined))
    throw InputError(
        fmt::format("{} = '{}': the path {} leaves {} (expected a name that stays "
                    "under it)",
                    what, relative, joined.lexically_normal().string(), root.string()));
  return joined.lexically_normal();
}

}  // namespace geotrain
