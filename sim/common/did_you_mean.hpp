#pragma once
// Suggests the closest known name for a misspelled one (Levenshtein distance), so error
// messages can say "did you mean 'adpsgd'?".
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geotrain {

std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate within a distance that scales with the word's length, if any.
std::optional<std::string> closest_name(std::string_view word,
                                        const std::vector<std::string>& candidates);

// "a, b, c" for error messages.
std::string join_names(const std::vector<std::string>& names);

}  // namespace geotrain
