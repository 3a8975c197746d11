#pragma once
// "Did you mean" suggestions for misspelled keys and names (after ninja's SpellcheckStringV).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The candidate closest to `word` by edit distance (Levenshtein), if that distance is at most
// max(2, word.size() / 3); ties go to the earliest candidate. nullopt when none is close enough.
std::optional<std::string> closest_word(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace neuron_gate
