#pragma once
// The trace reader's fast path (internal to kineto_trace.cpp): RapidJSON's SAX Reader streaming over the
// ChunkReader (no document in memory), driving the same TraceSax state machine as nlohmann's parser.
// Keys and strings arrive as (pointer, length) into RapidJSON's buffer and are matched by length and
// bytes (event_key / args_key), never copied into a std::string first; numbers arrive as their JSON
// text (kParseNumbersAsStringsFlag) and are classified as nlohmann would (integer / unsigned / text).
//
// The fast path stops — and the caller reads the file again with nlohmann's parser, whose result or error
// message is then the one given — on anything where the two parsers might disagree: any RapidJSON parse
// error, ill-formed UTF-8 in a string, a number that is not finite as a double, nesting deeper than
// k_fast_max_depth, a string longer than twice the string limit. So accepted files, samples and every error message are exactly nlohmann's.

#include "profile/chunk_reader.hpp"
#include "profile/trace_sax.hpp"
#include "util/input_limits.hpp"

#include <rapidjson/reader.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

namespace neuron_gate::trace_reader {

// Deeper nesting than this leaves the fast path (RapidJSON's Reader recurses; real traces nest < 10).
inline constexpr std::size_t k_fast_max_depth = 200;

// Thrown by CappedAllocator; caught in parse_with_rapidjson, never seen outside.
struct FastPathStop {};

// RapidJSON's parse-stack allocator, refusing to grow the stack (which holds the string or number being
// read) past twice the string limit: a longer string leaves the fast path, and nlohmann's pass refuses
// it with the string-limit error at its byte (ChunkReader's guard) before holding it.
class CappedAllocator {
public:
  static constexpr bool kNeedFree = true;
  void* Malloc(std::size_t size) { return Realloc(nullptr, 0, size); }
  void* Realloc(void* original, std::size_t /*original_size*/, std::size_t new_size) {
    if (new_size > 2 * input_limits().max_string_bytes + 4096) {
      throw FastPathStop{};
    }
    if (new_size == 0) {
      std::free(original);
      return nullptr;
    }
    void* grown = std::realloc(original, new_size);
    if (grown == nullptr) {
      throw std::bad_alloc();
    }
    return grown;
  }
  static void Free(void* pointer) { std::free(pointer); }
};

// The ChunkReader as a RapidJSON input stream: Peek/Take compare one pointer per character and load the
// next chunk at its end; Tell is the byte offset in the (decompressed) data. '\0' at the end.
class RapidStream {
public:
  using Ch = char;
  explicit RapidStream(ChunkReader& reader) : m_reader(reader) {}
  RAPIDJSON_FORCEINLINE Ch Peek() const { return m_reader.m_cur != m_reader.m_end ? *m_reader.m_cur : peek_slow(); }
  RAPIDJSON_FORCEINLINE Ch Take() {
    if (m_reader.m_cur != m_reader.m_end || !m_reader.at_end()) {
      return *m_reader.m_cur++;
    }
    return '\0';
  }
  // The unread rest of the current chunk, and skipping `count` bytes of it (ScanCopyUnescapedString).
  const char* cursor() const { return m_reader.m_cur; }
  const char* chunk_end() const { return m_reader.m_end; }
  void skip(std::size_t count) { m_reader.m_cur += count; }
  // Skips JSON white space, a chunk at a time (RapidJSON's generic loop takes a Peek/Take per byte).
  void skip_whitespace() {
    for (;;) {
      const char* p = m_reader.m_cur;
      const char* const end = m_reader.m_end;
      while (p != end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) {
        ++p;
      }
      m_reader.m_cur = p;
      if (p != end || m_reader.at_end()) {
        return;
      }
    }
  }
  std::size_t Tell() const { return static_cast<std::size_t>(m_reader.offset()); }
  // Output half of the stream concept: used only by in-situ parsing, which the reader never asks for.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch /*c*/) {}
  void Flush() {}
  std::size_t PutEnd(Ch* /*begin*/) { return 0; }

private:
  __attribute__((noinline)) Ch peek_slow() const { return m_reader.at_end() ? '\0' : *m_reader.m_cur; }
  ChunkReader& m_reader;
};

} // namespace neuron_gate::trace_reader

// RapidJSON 1.1.0's parse stack allocates lazily and its first Push adds an offset to the null pointer
// (undefined behaviour that UBSan stops scripts/sanitize.sh on); for the reader's allocator it allocates
// its initial capacity up front instead (the constructor is otherwise RapidJSON's).
template <>
inline rapidjson::internal::Stack<neuron_gate::trace_reader::CappedAllocator>::Stack(
    neuron_gate::trace_reader::CappedAllocator* allocator, size_t stackCapacity)
    : allocator_(allocator), ownAllocator_(0), stack_(0), stackTop_(0), stackEnd_(0),
      initialCapacity_(stackCapacity) {
  if (allocator_ == nullptr) {
    ownAllocator_ = allocator_ = RAPIDJSON_NEW(neuron_gate::trace_reader::CappedAllocator());
  }
  Resize(initialCapacity_);
}

namespace neuron_gate::trace_reader {

// RapidJSON's white-space skip for RapidStream, found by argument-dependent lookup over its template.
inline void SkipWhitespace(RapidStream& stream) { stream.skip_whitespace(); }

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
// forms, no surrogates, nothing above U+10FFFF). ASCII runs are checked 8 bytes at a time.
inline bool well_formed_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const auto* end = p + text.size();
  while (p != end) {
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

// RapidJSON's handler concept over TraceSax. Returns false (stopping the Reader) when the fast path must
// give the file to nlohmann's parser; stopped() tells that apart from a RapidJSON parse error.
class RapidSax {
public:
  explicit RapidSax(TraceSax& sax) : m_sax(sax) {}

  bool Null() { return m_sax.null(); }
  bool Bool(bool value) { return m_sax.boolean(value); }
  // Only RawNumber is called under kParseNumbersAsStringsFlag; the others complete the concept.
  bool Int(int value) { return m_sax.number_integer(value); }
  bool Uint(unsigned value) { return m_sax.number_unsigned(value); }
  bool Int64(std::int64_t value) { return m_sax.number_integer(value); }
  bool Uint64(std::uint64_t value) { return m_sax.number_unsigned(value); }
  bool Double(double /*value*/) { return stop(); }
  // A number as nlohmann types it: no '.', 'e', 'E' and within int64 (negative) or uint64 (otherwise)
  // is an integer; anything else is a float given by its text.
  bool RawNumber(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    const std::string_view number(text, length);
    bool integer = true;
    for (const char c : number) {
      if (c == '.' || c == 'e' || c == 'E') {
        integer = false;
        break;
      }
    }
    if (integer && number.front() == '-') {
      std::int64_t value = 0;
      const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
      if (result.ec == std::errc{} && result.ptr == number.data() + number.size()) {
        return m_sax.signed_integer(value, value == 0 ? std::string_view("0") : number);  // "-0" prints as 0
      }
    } else if (integer) {
      std::uint64_t value = 0;
      const auto result = std::from_chars(number.data(), number.data() + number.size(), value);
      if (result.ec == std::errc{} && result.ptr == number.data() + number.size()) {
        return m_sax.unsigned_integer(value, number);
      }
    }
    if (!finite_number_text(number)) {
      return stop();
    }
    return m_sax.float_text(number);
  }
  bool String(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    const std::string_view value(text, length);
    return well_formed_utf8(value) ? m_sax.string_view(value) : stop();
  }
  bool Key(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    const std::string_view key(text, length);
    return well_formed_utf8(key) ? m_sax.key_view(key) : stop();
  }
  bool StartObject() { return m_sax.depth() < k_fast_max_depth ? m_sax.start_object(0) : stop(); }
  bool EndObject(rapidjson::SizeType /*members*/) { return m_sax.end_object(); }
  bool StartArray() { return m_sax.depth() < k_fast_max_depth ? m_sax.start_array(0) : stop(); }
  bool EndArray(rapidjson::SizeType /*elements*/) { return m_sax.end_array(); }

  bool stopped() const { return m_stopped; }

private:
  bool stop() {
    m_stopped = true;
    return false;
  }
  TraceSax& m_sax;
  bool m_stopped = false;
};

} // namespace neuron_gate::trace_reader

// RapidJSON copies a string's characters one Peek/Take/Put at a time from any stream but its in-memory
// ones; this specialization of its hook for the in-memory fast path copies each run of plain characters
// of the current chunk at once (the same bytes, so the same strings), and RapidJSON goes on from there.
template <>
template <>
inline void rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, neuron_gate::trace_reader::CappedAllocator>::
    ScanCopyUnescapedString<neuron_gate::trace_reader::RapidStream,
                            rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>,
                                                     neuron_gate::trace_reader::CappedAllocator>::StackStream<char>>(
        neuron_gate::trace_reader::RapidStream& is, StackStream<char>& os) {
  const std::size_t run = neuron_gate::trace_reader::unescaped_run(is.cursor(), is.chunk_end());
  if (run != 0) {
    std::memcpy(os.Push(static_cast<rapidjson::SizeType>(run)), is.cursor(), run);
    is.skip(run);
  }
}

namespace neuron_gate::trace_reader {

// Parses the whole trace with RapidJSON into `sax`. True when the data is one complete JSON value read
// to the end; false when the fast path stopped or RapidJSON found an error (the caller then reads the
// file again with nlohmann's parser for the exact result or message). InputErrors of the byte source
// (gzip, limits, string lengths) propagate.
inline bool parse_with_rapidjson(TraceSax& sax, ChunkReader& reader) {
  std::string_view head = reader.peek();
  if (head.substr(0, 3) == "\xEF\xBB\xBF") {
    reader.m_cur += 3;  // a UTF-8 byte order mark (offsets stay those of the file)
  }
  RapidStream stream(reader);
  RapidSax handler(sax);
  CappedAllocator allocator;
  rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, CappedAllocator> parser(&allocator);
  try {
    const rapidjson::ParseResult result = parser.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, handler);
    return !result.IsError() && !handler.stopped();
  } catch (const FastPathStop&) {
    return false;
  }
}

} // namespace neuron_gate::trace_reader
