#pragma once
// Time units. All times inside neuron-gate are integer nanoseconds.

#include <cstdint>
#include <optional>
#include <string_view>

namespace neuron_gate {

// A duration or timestamp in nanoseconds (int64: ±292 years).
using Nanoseconds = std::int64_t;

// Exact conversion of a decimal microsecond text ("4817302955.125", "-1", "13.083999999999989",
// "1.5e3") to nanoseconds, rounded half away from zero at the nanosecond; never goes through
// double for plain decimals. nullopt when the text is not a number or overflows int64 ns.
std::optional<Nanoseconds> decimal_microseconds_to_ns(std::string_view text);

// `ns` in microseconds, as the reports and metrics show times.
constexpr double to_us(Nanoseconds ns) {
  return static_cast<double>(ns) / 1000.0;
}

}  // namespace neuron_gate
