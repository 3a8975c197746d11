#pragma once
// Byte scans of the trace reader's fast path (trace_rapidjson.hpp), over the bytes of one chunk: the plain
// run of a JSON string, white space, the characters of a number and its grammar, UTF-8 well-formedness.
// 16 bytes a step with SSE2 (baseline on x86-64), a byte at a time elsewhere; the same answers either way.

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace neuron_gate::trace_reader {

// True for JSON white space (RFC 8259: space, tab, line feed, carriage return).
inline bool json_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

// The first byte at or after `p` (before `end`) that is not JSON white space, or `end`.
inline const char* skip_spaces(const char* p, const char* end) {
#ifdef __SSE2__
  while (end - p >= 16) {
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i space =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(s, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(s, _mm_set1_epi8('\n'))),
                     _mm_or_si128(_mm_cmpeq_epi8(s, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(s, _mm_set1_epi8('\t'))));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(space)) ^ 0xFFFFu;
    if (mask != 0) {
      return p + __builtin_ctz(mask);
    }
    p += 16;
  }
#endif
  while (p != end && json_space(*p)) {
    ++p;
  }
  return p;
}

// True for the bytes a JSON number may hold (digits, '-', '+', '.', 'e', 'E').
inline bool number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

// The length of the run of number_char bytes at `p` (before `end`).
inline std::size_t number_run(const char* p, const char* end) {
  const char* start = p;
  while (p != end && number_char(*p)) {
    ++p;
  }
  return static_cast<std::size_t>(p - start);
}

// True when `text` is exactly one JSON number (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?).
inline bool json_number(std::string_view text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < n && text[i] >= '0' && text[i] <= '9') {
      ++i;
    }
    return i > from;
  };
  if (i < n && text[i] == '-') {
    ++i;
  }
  if (i < n && text[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < n && text[i] == '.') {
    ++i;
    if (!digits()) {
      return false;
    }
  }
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < n && (text[i] == '+' || text[i] == '-')) {
      ++i;
    }
    if (!digits()) {
      return false;
    }
  }
  return i == n;
}

// The length of the run at `p` (before `end`) of bytes that a JSON string copies as they are: up to the
// first '"', '\\' or control character. 16 bytes a step with SSE2, as RapidJSON's own in-memory scan.
inline std::size_t unescaped_run(const char* p, const char* end) {
  const char* start = p;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1F);
  while (end - p >= 16) {
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(s, quote), _mm_cmpeq_epi8(s, backslash)),
                                      _mm_cmpeq_epi8(_mm_max_epu8(s, control), control));
    const unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(stop));
    if (mask != 0) {
      return static_cast<std::size_t>(p - start) + static_cast<std::size_t>(__builtin_ctz(mask));
    }
    p += 16;
  }
#endif
  while (p != end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) {
    ++p;
  }
  return static_cast<std::size_t>(p - start);
}

// True when `text` is well-formed UTF-8 by the ranges nlohmann's lexer accepts (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF). ASCII runs are checked 16 (SSE2) or 8 bytes at a time.
inline bool well_formed_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p != end) {
#ifdef __SSE2__
    if (end - p >= 16 && _mm_movemask_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))) == 0) {
      p += 16;
      continue;
    }
#endif
    if (end - p >= 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, p, 8);
      if ((word & 0x8080808080808080ULL) == 0) {
        p += 8;
        continue;
      }
    }
    const unsigned c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int follow = 0;
    unsigned lo = 0x80;
    unsigned hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      follow = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      follow = 2;
      lo = c == 0xE0 ? 0xA0 : 0x80;
      hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
      follow = 3;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
      return false;
    }
    if (end - p <= follow) {
      return false;
    }
    if (p[1] < lo || p[1] > hi) {
      return false;
    }
    for (int i = 2; i <= follow; ++i) {
      if (p[i] < 0x80 || p[i] > 0xBF) {
        return false;
      }
    }
    p += follow + 1;
  }
  return true;
}

// True when a JSON number's text is finite as a double (nlohmann refuses 1e400 as "number overflow").
inline bool finite_number_text(std::string_view text) {
  if (text.size() < 300 && text.find_first_of("eE") == std::string_view::npos) {
    return true;  // fewer than 300 digits and no exponent: below DBL_MAX
  }
  const std::string copy(text);
  return std::isfinite(std::strtod(copy.c_str(), nullptr));
}

}  // namespace neuron_gate::trace_reader
