// The name and free-text rules (sim/common/text_rules.hpp).
#include "sim/common/text_rules.hpp"

#include <catch2/catch.hpp>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace text_rules_test {

using namespace geotrain;

TEST_CASE("identifiers are letters, digits, dot, underscore and dash, 1 to 64 characters, not starting with a dot", "[text]") {
  CHECK_FALSE(identifier_problem("dtfm_case5"));
  CHECK_FALSE(identifier_problem("a.b-c_D9"));
  CHECK_FALSE(identifier_problem(std::string(64, 'x')));
  CHECK(identifier_problem(std::string(65, 'x')).value().rfind("65 characters is too long", 0) ==
        0);
  CHECK(identifier_problem("").value().rfind("empty", 0) == 0);
  CHECK(identifier_problem(".hidden").value().rfind("starts with '.'", 0) == 0);
  CHECK(identifier_problem("..").has_value());
  CHECK(identifier_problem("../x").has_value());
  CHECK(identifier_problem("a/b").value().rfind("holds '/', which a name may not", 0) == 0);
  CHECK(identifier_problem("a b").has_value());
  CHECK(identifier_problem("caf\xC3\xA9").has_value());
}

TEST_CASE("free text refuses control and bidi characters and invalid UTF-8", "[text]") {
  CHECK_FALSE(text_problem("S\xC3\xA3o Paulo, 5 ms"));
  CHECK_FALSE(text_problem(""));
  CHECK(text_problem("a\nb").value() ==
        "holds the control or bidirectional character U+000A (expected printable text)");
  CHECK(text_problem("a\x1b[2J").value().find("U+001B") != std::string::npos);
  CHECK(text_problem("a\x7f").value().find("U+007F") != std::string::npos);
  CHECK(text_problem("a\xC2\x85").value().find("U+0085") != std::string::npos);         // C1 NEL
  CHECK(text_problem("x\xE2\x80\xAEtxt").value().find("U+202E") != std::string::npos);  // RLO
  CHECK(text_problem("x\xE2\x80\xAA").value().find("U+202A") != std::string::npos);     // LRE
  CHECK(text_problem("x\xE2\x81\xA6").value().find("U+2066") != std::string::npos);     // LRI
  CHECK(text_problem("x\xE2\x81\xA9").value().find("U+2069") != std::string::npos);     // PDI
  CHECK(text_problem("x\xE2\x80\x8F").value().find("U+200F") != std::string::npos);     // RLM
  CHECK(text_problem("\xFF").value() == "is not valid UTF-8 (expected UTF-8 text)");
  CHECK(text_problem("\xE2\x80").value() == "is not valid UTF-8 (expected UTF-8 text)");
}

TEST_CASE("printable escapes what text_problem refuses", "[text]") {
  CHECK(printable("report\xE2\x80\xAEtxt.yaml") == "report\\u{202E}txt.yaml");
  CHECK(printable("a\nb") == "a\\u{000A}b");
  CHECK(printable("\xFF") == "\\x{FF}");
  CHECK(printable("S\xC3\xA3o Paulo") == "S\xC3\xA3o Paulo");
}

TEST_CASE("a file stem becomes a valid name", "[text]") {
  CHECK(identifier_from("dtfm_case5") == "dtfm_case5");
  CHECK(identifier_from("my scenario") == "my_scenario");
  CHECK(identifier_from("..") == "scenario");
  CHECK(identifier_from(".hidden") == "hidden");
  CHECK(identifier_from("") == "scenario");
  CHECK(identifier_from(std::string(80, 'a')).size() == 64);
  CHECK_FALSE(identifier_problem(identifier_from("x\xE2\x80\xAEy")));
}

}  // namespace text_rules_test
