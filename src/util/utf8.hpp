#pragma once
// UTF-8 validation at read time: every name taken from a profile (op names, file names) is valid UTF-8
// before it reaches any later stage, so no output can fail on it (nlohmann's type_error.316).

#include <cstddef>
#include <string>
#include <string_view>

namespace neuron_gate {

// `text` with each maximal invalid UTF-8 subsequence (Unicode 15 section 3.9, "substitution of maximal
// subparts") replaced by U+FFFD; overlong forms, surrogates and code points above U+10FFFF are invalid.
// Adds the number of replacements to `*replaced` when it is not null.
std::string valid_utf8(std::string_view text, std::size_t* replaced = nullptr);

// True when `text` is valid UTF-8 (same definition).
bool is_valid_utf8(std::string_view text);

// One step of decoding `text` at byte `at` (< text.size()): the code point and its length in bytes, or
// for a maximal invalid subpart (same definition) U+FFFD, the subpart's length and valid == false.
struct CodePointStep {
  char32_t code_point = 0;
  std::size_t length = 1;  // bytes consumed, >= 1
  bool valid = true;
};
CodePointStep next_code_point(std::string_view text, std::size_t at);

// Appends the UTF-8 encoding of `code_point` (<= U+10FFFF, not a surrogate) to `out`.
void append_utf8(std::string& out, char32_t code_point);

}  // namespace neuron_gate
