// path_under (sim/common/safe_path.hpp): nothing built from a scenario or a flag may leave its
// root.
#include "sim/common/safe_path.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace safe_path_test {

namespace fs = std::filesystem;
using namespace geotrain;

namespace {
// A fresh folder of this test (pid in the name: parallel ctest runs do not share it).
fs::path scratch() {
  const fs::path dir =
      fs::temp_directory_path() / ("geotrain_safe_path_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "root");
  return dir;
}
std::string refusal(const fs::path& root, const std::vector<std::string>& parts) {
  try {
    path_under(root, parts, "name");
  } catch (const InputError& e) {
    return e.problems().front();
  }
  return "";
}
}  // namespace

TEST_CASE("names under the root are joined and normalised", "[safe_path]") {
  const fs::path dir = scratch();
  CHECK(path_under(dir / "root", {"case5", "sim"}, "name") == dir / "root" / "case5" / "sim");
  CHECK(path_under(dir / "root", {"a/./b"}, "name") == dir / "root" / "a" / "b");
  CHECK(path_under(dir / "root", {"a/../b"}, "name") == dir / "root" / "b");
  CHECK(path_under("results", {"x", "sim"}, "name") == fs::path("results/x/sim"));
  CHECK(stays_under(dir / "root", dir / "root"));
  fs::remove_all(dir);
}

TEST_CASE("climbing out, absolute and empty components are refused", "[safe_path][errors]") {
  const fs::path dir = scratch();
  const fs::path root = dir / "root";
  CHECK(refusal(root, {"../../../etc/geotrain_pwn", "sim"}) ==
        "name = '../../../etc/geotrain_pwn/sim': the path " +
            (root / "../../../etc/geotrain_pwn/sim").lexically_normal().string() + " leaves " +
            root.string() + " (expected a name that stays under it)");
  CHECK_FALSE(refusal(root, {".."}).empty());
  CHECK_FALSE(refusal(root, {"a", "../.."}).empty());
  CHECK(refusal(root, {"/etc"}) ==
        "name = '/etc': an absolute path where a name under " + root.string() + " was expected");
  CHECK(refusal(root, {""}) == "name = '': an empty path component (expected a name)");
  // A sibling whose name starts like the root is not under it.
  CHECK_FALSE(stays_under(root, dir / "root2" / "x"));
  // Nothing was created while checking.
  CHECK(fs::is_empty(root));
  fs::remove_all(dir);
}

TEST_CASE("a symlink under the root that points outside is refused", "[safe_path][errors]") {
  const fs::path dir = scratch();
  fs::create_directories(dir / "outside");
  fs::create_directory_symlink(dir / "outside", dir / "root" / "link");
  CHECK_FALSE(refusal(dir / "root", {"link", "sim"}).empty());
  // A symlink that stays inside is fine.
  fs::create_directories(dir / "root" / "real");
  fs::create_directory_symlink(dir / "root" / "real", dir / "root" / "inner");
  CHECK(path_under(dir / "root", {"inner", "sim"}, "name") == dir / "root" / "inner" / "sim");
  fs::remove_all(dir);
}

TEST_CASE("long names are joined as they are", "[safe_path]") {
  const fs::path dir = scratch();
  const std::string name(64, 'a');
  CHECK(path_under(dir / "root", {name}, "name") == dir / "root" / name);
  fs::remove_all(dir);
}

}  // namespace safe_path_test
