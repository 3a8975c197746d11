#pragma once
// Small text helpers shared by the stages that word their own values (condition rows, calibration).

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

namespace neuron_gate {

// "1 step", "3 steps": `n` and `word` with an "s" unless n is 1.
std::string plural(std::size_t n, const std::string& word);

// The items in set order, separated by ", ".
std::string join_set(const std::set<std::string>& items);

// `text` (UTF-8; an invalid byte counts as one character) cut in the middle to at most `max_chars` code
// points, "…" marking the cut: the first (max_chars - 1 + 1) / 2 and the last (max_chars - 1) / 2 code
// points kept; shorter text as it is. shorten_middle("aten::some_fairly_long_operator_name", 16) ==
// "aten::so…or_name". max_chars < 3 is taken as 3.
std::string shorten_middle(std::string_view text, std::size_t max_chars);

}  // namespace neuron_gate
