#pragma once
// Small text helpers shared by the stages that word their own values (condition rows, calibration).

#include <cstddef>
#include <set>
#include <string>

namespace neuron_gate {

// "1 step", "3 steps": `n` and `word` with an "s" unless n is 1.
std::string plural(std::size_t n, const std::string& word);

// The items in set order, separated by ", ".
std::string join_set(const std::set<std::string>& items);

} // namespace neuron_gate
