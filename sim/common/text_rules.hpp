#pragma once
// What scenario strings may contain. Two kinds:
//   identifiers (the scenario name) end up in directory names and, through the cluster name, in
//   network namespace names, so they are [A-Za-z0-9._-], 1 to 64 characters, not starting with
//   '.' (no "..", no hidden files, nothing a shell or a path would read specially);
//   free text (descriptions, region and profile names, every other value) only reaches logs,
//   summaries and result files, so it may hold any printable Unicode, but no control characters
//   (C0, DEL, C1) and no bidirectional overrides or isolates (U+202A..U+202E, U+2066..U+2069,
//   U+200E/U+200F, U+061C), which can make a log line read differently from what it holds.
#include <optional>
#include <string>
#include <string_view>

namespace geotrain {

inline constexpr std::size_t kMaxNameLength = 64;

// nullopt when `name` is a valid identifier; else what is wrong, with the expectation.
std::optional<std::string> identifier_problem(std::string_view name);
// nullopt when `text` is acceptable free text; else what is wrong.
std::optional<std::string> text_problem(std::string_view text);
// `text` with control and bidi characters written as \u{XXXX} (and invalid UTF-8 bytes as
// \x{XX}), so an error message quoting a bad value cannot itself be misread.
std::string printable(std::string_view text);
// A file stem made into a valid identifier: other characters become '_', leading dots go,
// at most 64 characters, "scenario" when nothing is left.
std::string identifier_from(std::string_view stem);

}  // namespace geotrain
