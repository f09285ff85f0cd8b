#include <catch2/catch.hpp>

#include "sim/common/one_line.hpp"

using geotrain::one_line;

TEST_CASE("control characters become escapes, everything else stays", "[errors]") {
  CHECK(one_line("plain 'text' = 1") == "plain 'text' = 1");
  CHECK(one_line("a\nb\r\tc") == "a\\nb\\r\\tc");
  CHECK(one_line(std::string("nul\0bell\a del\x7f", 14)) == "nul\\x00bell\\x07 del\\x7f");
  CHECK(one_line("Zürich") == "Zürich");
  CHECK(one_line("") == "");
}
