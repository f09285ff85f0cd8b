// The strategies register themselves (sim/strategies/strategy_registry.hpp) into the catalog
// (sim/scenario/strategy_catalog.hpp). If the linker dropped a strategy's object file (the
// static-archive pitfall sim/strategies/CMakeLists.txt guards against), its name would be
// missing here: the test counts the registrars in the source folder instead of listing names,
// so a new strategy needs no edit here.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/scenario/strategy_catalog.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace strategy_catalog_test {

namespace fs = std::filesystem;
using namespace geotrain;

TEST_CASE("every strategy file's registrar reached the catalog", "[scenario][strategies]") {
  // k<Name>Registrar: each strategy's registrar has a name of its own (the unity build compiles
  // several strategy files as one).
  const std::regex registrar(R"(const StrategyRegistrar k[A-Za-z0-9]*Registrar\{)");
  int registrars = 0;
  for (const auto& e : fs::directory_iterator(std::string(GEOTRAIN_SOURCE_DIR) + "/sim/strategies")) {
    if (e.path().extension() != ".cpp") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    if (std::regex_search(text.str(), registrar)) ++registrars;
  }
  CHECK(registrars >= 9);  // the strategies of 2026-11; guards against a pattern that no longer matches
  CHECK(strategy_catalog().size() == static_cast<std::size_t>(registrars));
}

TEST_CASE("the catalog is sorted by name and refuses a second registration", "[scenario][strategies]") {
  const auto names = strategy_names();
  CHECK(std::is_sorted(names.begin(), names.end()));
  REQUIRE_FALSE(names.empty());
  CHECK_THROWS_AS(add_strategy_decl({names.front(), "again", {}, nullptr}), Error);
  CHECK_THROWS_WITH(add_strategy_decl({names.front(), "again", {}, nullptr}),
                    "strategy '" + names.front() + "' is registered twice");
  CHECK(strategy_names() == names);
  for (const auto& name : names) CHECK(find_strategy(name));
  CHECK_FALSE(find_strategy("no-such-strategy"));
}

}  // namespace strategy_catalog_test
