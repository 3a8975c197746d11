#include "util/units.hpp"

#include <cstddef>
#include <limits>

namespace neuron_gate {
namespace {

// A decimal number as its significant digits (leading zeros dropped) and where the decimal point sits
// among them: value = 0.d1d2d3... * 10^point. Only digits up to the nanosecond and the one after it
// matter, so at most k_kept_digits are kept.
struct DecimalDigits {
  static constexpr std::size_t k_kept_digits = 40;
  bool negative = false;
  char digits[k_kept_digits] = {};
  std::size_t digit_count = 0;  // digits kept (at most k_kept_digits)
  bool any_digit = false;
  bool seen_nonzero = false;
  std::int64_t point = 0;  // decimal exponent of the first kept digit's position

  void add(char digit) {
    if (digit_count < k_kept_digits) {
      digits[digit_count++] = digit;
    }
  }
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The mantissa "[+-]digits[.digits]" from text[i]; advances i past it.
void scan_mantissa(std::string_view text, std::size_t& i, DecimalDigits& number) {
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    number.negative = text[i] == '-';
    ++i;
  }
  for (; i < text.size() && is_digit(text[i]); ++i) {
    number.any_digit = true;
    if (!number.seen_nonzero && text[i] == '0') {
      continue;
    }
    number.seen_nonzero = true;
    ++number.point;
    number.add(text[i]);
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      number.any_digit = true;
      if (!number.seen_nonzero && text[i] == '0') {
        --number.point;
        continue;
      }
      number.seen_nonzero = true;
      number.add(text[i]);
    }
  }
}

// The whole of `text` as a decimal number (JSON number syntax, leniently): nullopt for anything else.
std::optional<DecimalDigits> scan_decimal(std::string_view text) {
  std::size_t i = 0;
  DecimalDigits number;
  scan_mantissa(text, i, number);
  if (!number.any_digit) {
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
    for (; i < text.size() && is_digit(text[i]); ++i) {
      if (exponent < 100000) {  // anything larger overflows or underflows anyway
        exponent = exponent * 10 + (text[i] - '0');
      }
    }
    number.point += exponent_negative ? -exponent : exponent;
  }
  if (i != text.size()) {
    return std::nullopt;
  }
  return number;
}

// The number, read as microseconds, in whole nanoseconds rounded half away from zero; nullopt beyond
// the range of Nanoseconds.
std::optional<Nanoseconds> to_nanoseconds(const DecimalDigits& number) {
  if (!number.seen_nonzero) {
    return Nanoseconds{0};
  }
  // Nanoseconds = microseconds * 1000: the integer part has point + 3 digits.
  const std::int64_t integer_digits = number.point + 3;
  if (integer_digits > 19) {
    return std::nullopt;
  }
  // At most 19 digits: below 10^19, so the value fits in uint64 before the int64 range check.
  std::uint64_t magnitude = 0;
  for (std::int64_t d = 0; d < integer_digits; ++d) {
    const auto index = static_cast<std::size_t>(d);
    magnitude =
        magnitude * 10 + (index < number.digit_count ? static_cast<std::uint64_t>(number.digits[index] - '0') : 0U);
  }
  // Round half away from zero: the dropped part is >= 0.5 exactly when its first digit is >= 5.
  if (integer_digits >= 0) {
    const auto next = static_cast<std::size_t>(integer_digits);
    if (next < number.digit_count && number.digits[next] >= '5') {
      ++magnitude;
    }
  }
  const auto limit = static_cast<std::uint64_t>(std::numeric_limits<Nanoseconds>::max());
  if (magnitude > limit) {
    return std::nullopt;
  }
  const auto value = static_cast<Nanoseconds>(magnitude);
  return number.negative ? -value : value;
}

}  // namespace

std::optional<Nanoseconds> decimal_microseconds_to_ns(std::string_view text) {
  const std::optional<DecimalDigits> number = scan_decimal(text);
  return number ? to_nanoseconds(*number) : std::nullopt;
}

}  // namespace neuron_gate
