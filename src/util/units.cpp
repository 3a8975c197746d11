#include "util/units.hpp"

#include <cstddef>
#include <limits>

namespace neuron_gate {

std::optional<Nanoseconds> decimal_microseconds_to_ns(std::string_view text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }

  // The significant digits (leading zeros dropped) and where the decimal point sits among them:
  // value = 0.d1d2d3... * 10^point.  Only digits up to the nanosecond and the one after it matter.
  constexpr std::size_t k_kept_digits = 40;
  char digits[k_kept_digits];
  std::size_t digit_count = 0;  // digits kept (at most k_kept_digits)
  bool any_digit = false;
  bool seen_nonzero = false;
  std::int64_t point = 0;  // decimal exponent of the first kept digit's position

  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    any_digit = true;
    if (!seen_nonzero && text[i] == '0') {
      continue;
    }
    seen_nonzero = true;
    ++point;
    if (digit_count < k_kept_digits) {
      digits[digit_count++] = text[i];
    }
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      any_digit = true;
      if (!seen_nonzero && text[i] == '0') {
        --point;
        continue;
      }
      seen_nonzero = true;
      if (digit_count < k_kept_digits) {
        digits[digit_count++] = text[i];
      }
    }
  }
  if (!any_digit) {
    return std::nullopt;
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exponent_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
      exponent_negative = text[i] == '-';
      ++i;
    }
    if (i == text.size()) {
      return std::nullopt;
    }
    std::int64_t exponent = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (exponent < 100000) {  // anything larger overflows or underflows anyway
        exponent = exponent * 10 + (text[i] - '0');
      }
    }
    point += exponent_negative ? -exponent : exponent;
  }
  if (i != text.size()) {
    return std::nullopt;
  }
  if (!seen_nonzero) {
    return Nanoseconds{0};
  }

  // Nanoseconds = microseconds * 1000: the integer part has point + 3 digits.
  const std::int64_t integer_digits = point + 3;
  if (integer_digits > 19) {
    return std::nullopt;
  }
  // At most 19 digits: below 10^19, so the value fits in uint64 before the int64 range check.
  std::uint64_t magnitude = 0;
  for (std::int64_t d = 0; d < integer_digits; ++d) {
    const auto index = static_cast<std::size_t>(d);
    magnitude = magnitude * 10 + (index < digit_count ? static_cast<std::uint64_t>(digits[index] - '0') : 0U);
  }
  // Round half away from zero: the dropped part is >= 0.5 exactly when its first digit is >= 5.
  if (integer_digits >= 0) {
    const auto next = static_cast<std::size_t>(integer_digits);
    if (next < digit_count && digits[next] >= '5') {
      ++magnitude;
    }
  }
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<Nanoseconds>::max());
  if (magnitude > limit) {
    return std::nullopt;
  }
  const auto value = static_cast<Nanoseconds>(magnitude);
  return negative ? -value : value;
}

} // namespace neuron_gate
