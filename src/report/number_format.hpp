#pragma once
// Numbers as report text, by fixed rules so that the same inputs give byte-identical reports.

#include <optional>
#include <string>

namespace neuron_gate {

// A value with `significant` significant digits, fixed notation, trailing zeros kept only to that
// precision: 1234.5 -> "1235", 12.345 -> "12.3", 0.012345 -> "0.0123". nullopt -> "–".
std::string format_significant(std::optional<double> value, int significant = 3);

// A plain number with at most `significant` significant digits and no trailing zeros:
// 1.0 -> "1", 0.05 -> "0.05", 2.5 -> "2.5", 1234.5 -> "1234" (never scientific). nullopt -> "–".
std::string format_number(std::optional<double> value, int significant = 3);

// A time in µs as text with a unit chosen by size: 0 -> "0 µs", 0.5 -> "0.50 µs", 3.25 -> "3.25 µs", 12.5 -> "12.5 µs",
// 1234 -> "1.23 ms", 2.5e6 -> "2.50 s". nullopt or non-finite -> "–".
std::string format_duration_us(std::optional<double> microseconds);

// A value in a metric's unit: times ("us", "µs", "ns", "ms", "s") go through format_duration_us with a
// unit chosen per value (0.01102 "ms" -> "11.0 µs"), others get the unit appended.
std::string format_value(std::optional<double> value, const std::string& unit);

// The same for a value measured with a timer of `resolution` (in `unit`): a value below one quantum
// prints as "< 1 µs" (quantised data cannot tell it from 0 or from one quantum; issue 14 item 3).
std::string format_value(std::optional<double> value, const std::string& unit, std::optional<double> resolution);

// A ratio head/base: 1.4234 -> "1.42x". nullopt -> "–".
std::string format_ratio(std::optional<double> ratio);

// A confidence interval of a ratio: "[1.40, 1.45]"; "–" if either end is missing.
std::string format_ratio_interval(std::optional<double> low, std::optional<double> high);

// A relative change: 1.052 -> "+5.2%", 0.9 -> "-10.0%"; from ±1000% on whole percent with thousands
// separators: 12.0 -> "+1,100%", 101 -> "+10,000%".
std::string format_change(std::optional<double> ratio);

// A ratio's CI as signed % changes with one '%': [1.422, 1.428] -> "+42.2…+42.8%"; "–" if either end is missing.
std::string format_change_interval(std::optional<double> low, std::optional<double> high);

// A change with its CI, the one way a report shows a ratio head/base in words: "+42.5% (90% CI
// +42.2…+42.8%)"; without a CI only the change ("+42.5%"); "–" without a ratio.
std::string format_change_with_ci(std::optional<double> ratio, std::optional<double> low, std::optional<double> high);

// A fraction as a percentage with at most 3 significant digits: 0.05 -> "5%", 0.0412 -> "4.12%", 0.2 ->
// "20%" (thresholds, shares, rates; unsigned). nullopt or non-finite -> "–".
std::string format_percent(std::optional<double> fraction);

// A p value: >= 0.001 with 3 significant digits ("0.0123"), smaller in scientific notation ("3.2e-16").
std::string format_p(std::optional<double> p);

}  // namespace neuron_gate
