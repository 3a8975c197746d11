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
// k_fast_max_depth, a string or number longer than the string limit, white space and punctuation between two
// scalars over an eighth of it (JsonRunGuard refuses them in nlohmann's pass). So accepted files, samples and
// every error message are exactly those of nlohmann's pass.

#include "formats/trace_sax.hpp"
#include "formats/trace_scan.hpp"
#include "input/chunk_reader.hpp"
#include "util/input_limits.hpp"

#include <rapidjson/reader.h>

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
  // Skips JSON white space: no byte or one space inline (the separators of compact JSON), longer runs
  // (indented traces) 16 bytes a step, chunk after chunk (RapidJSON's generic loop takes a Peek/Take a byte).
  RAPIDJSON_FORCEINLINE void skip_whitespace() {
    const char* p = m_reader.m_cur;
    if (m_reader.m_end - p >= 2 &&
        (static_cast<unsigned char>(p[0]) > ' ' || (p[0] == ' ' && static_cast<unsigned char>(p[1]) > ' '))) {
      m_reader.m_cur = p[0] == ' ' ? p + 1 : p;
      return;
    }
    skip_whitespace_run();
  }
  // White space (runs of two or more bytes) and brackets read since the last value: more than an eighth
  // of the string limit (single spaces and commas go uncounted) leaves the fast path, so that nlohmann's
  // pass, whose lexer would hold such a run, refuses it (JsonRunGuard) or reads the file.
  RAPIDJSON_FORCEINLINE void count_filler(std::uint64_t bytes) {
    m_filler += bytes;
    if (m_filler > m_max_filler) {
      throw FastPathStop{};
    }
  }
  RAPIDJSON_FORCEINLINE void value_read() { m_filler = 0; }
  std::size_t Tell() const { return static_cast<std::size_t>(m_reader.offset()); }
  // Output half of the stream concept: used only by in-situ parsing, which the reader never asks for.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch /*c*/) {}
  void Flush() {}
  std::size_t PutEnd(Ch* /*begin*/) { return 0; }

 private:
  __attribute__((noinline)) Ch peek_slow() const { return m_reader.at_end() ? '\0' : *m_reader.m_cur; }
  __attribute__((noinline)) void skip_whitespace_run() {
    for (;;) {
      const char* const from = m_reader.m_cur;
      m_reader.m_cur = skip_spaces(from, m_reader.m_end);
      count_filler(static_cast<std::uint64_t>(m_reader.m_cur - from));
      if (m_reader.m_cur != m_reader.m_end || m_reader.at_end()) {
        return;
      }
    }
  }
  ChunkReader& m_reader;
  std::uint64_t m_filler = 0;
  std::uint64_t m_max_filler = input_limits().max_string_bytes / 8;
};

}  // namespace neuron_gate::trace_reader

// RapidJSON 1.1.0's parse stack allocates lazily and its first Push adds an offset to the null pointer
// (undefined behaviour that UBSan stops scripts/sanitize.sh on); for the reader's allocator it allocates
// its initial capacity up front instead (the constructor is otherwise RapidJSON's).
template <>
inline rapidjson::internal::Stack<neuron_gate::trace_reader::CappedAllocator>::Stack(
    neuron_gate::trace_reader::CappedAllocator* allocator, size_t stackCapacity)
    : allocator_(allocator), ownAllocator_(0), stack_(0), stackTop_(0), stackEnd_(0), initialCapacity_(stackCapacity) {
  if (allocator_ == nullptr) {
    ownAllocator_ = allocator_ = RAPIDJSON_NEW(neuron_gate::trace_reader::CappedAllocator());
  }
  Resize(initialCapacity_);
}

namespace neuron_gate::trace_reader {

// RapidJSON's white-space skip for RapidStream, found by argument-dependent lookup over its template.
inline void SkipWhitespace(RapidStream& stream) {
  stream.skip_whitespace();
}

// RapidJSON's handler concept over TraceSax. Returns false (stopping the Reader) when the fast path must
// give the file to nlohmann's parser; stopped() tells that apart from a RapidJSON parse error.
class RapidSax {
 public:
  RapidSax(TraceSax& sax, RapidStream& stream) : m_sax(sax), m_stream(stream) {}

  bool Null() {
    m_stream.value_read();
    return m_sax.null();
  }
  bool Bool(bool value) {
    m_stream.value_read();
    return m_sax.boolean(value);
  }
  // Only RawNumber is called under kParseNumbersAsStringsFlag; the others complete the concept.
  bool Int(int value) { return m_sax.number_integer(value); }
  bool Uint(unsigned value) { return m_sax.number_unsigned(value); }
  bool Int64(std::int64_t value) { return m_sax.number_integer(value); }
  bool Uint64(std::uint64_t value) { return m_sax.number_unsigned(value); }
  bool Double(double /*value*/) { return stop(); }
  // A number as nlohmann types it: no '.', 'e', 'E' and within int64 (negative) or uint64 (otherwise)
  // is an integer; anything else is a float given by its text.
  bool RawNumber(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    m_stream.value_read();
    if (length > m_max_string) {
      return stop();  // nlohmann's pass refuses it (JsonRunGuard)
    }
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
    m_stream.value_read();
    const std::string_view value(text, length);
    return well_formed_utf8(value) ? m_sax.string_view(value) : stop();
  }
  bool Key(const char* text, rapidjson::SizeType length, bool /*copy*/) {
    m_stream.value_read();
    const std::string_view key(text, length);
    return well_formed_utf8(key) ? m_sax.key_view(key) : stop();
  }
  bool StartObject() {
    m_stream.count_filler(1);
    return m_sax.depth() < k_fast_max_depth ? m_sax.start_object(0) : stop();
  }
  bool EndObject(rapidjson::SizeType /*members*/) {
    m_stream.count_filler(1);
    return m_sax.end_object();
  }
  bool StartArray() {
    m_stream.count_filler(1);
    return m_sax.depth() < k_fast_max_depth ? m_sax.start_array(0) : stop();
  }
  bool EndArray(rapidjson::SizeType /*elements*/) {
    m_stream.count_filler(1);
    return m_sax.end_array();
  }

  bool stopped() const { return m_stopped; }
  // The string limit (input_limits().max_string_bytes), read once.
  std::uint64_t max_string() const { return m_max_string; }

 private:
  bool stop() {
    m_stopped = true;
    return false;
  }
  TraceSax& m_sax;
  RapidStream& m_stream;
  bool m_stopped = false;
  std::uint64_t m_max_string = input_limits().max_string_bytes;
};

}  // namespace neuron_gate::trace_reader

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

// RapidJSON's string parse, specialized for the fast path: a string whose closing quote lies in the current
// chunk with no escape or control character before it (nearly all) is handed to the handler where it lies,
// never copied; any other is copied by RapidJSON's own loop (escapes, UTF-8, a chunk boundary). A string
// longer than the string limit as written leaves the fast path, so that nlohmann's pass gives the limit
// error at its byte.
template <>
template <>
inline void
rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, neuron_gate::trace_reader::CappedAllocator>::ParseString<
    rapidjson::kParseNumbersAsStringsFlag, neuron_gate::trace_reader::RapidStream, neuron_gate::trace_reader::RapidSax>(
    neuron_gate::trace_reader::RapidStream& is, neuron_gate::trace_reader::RapidSax& handler, bool isKey) {
  is.Take();  // the opening '"'
  const char* const start = is.cursor();
  const std::size_t run = neuron_gate::trace_reader::unescaped_run(start, is.chunk_end());
  bool success = false;
  if (start + run != is.chunk_end() && start[run] == '"') {
    is.skip(run + 1);
    if (run > handler.max_string()) {
      throw neuron_gate::trace_reader::FastPathStop{};
    }
    const auto length = static_cast<SizeType>(run);
    success = isKey ? handler.Key(start, length, false) : handler.String(start, length, false);
  } else {
    const std::size_t begin = is.Tell();
    StackStream<char> copied(stack_);
    ParseStringToStream<kParseNumbersAsStringsFlag, UTF8<>, UTF8<>>(is, copied);
    RAPIDJSON_PARSE_ERROR_EARLY_RETURN_VOID;
    if (is.Tell() - begin - 1 > handler.max_string()) {
      throw neuron_gate::trace_reader::FastPathStop{};
    }
    const auto length = static_cast<SizeType>(copied.Length() - 1);
    const char* const text = copied.Pop();
    success = isKey ? handler.Key(text, length, true) : handler.String(text, length, true);
  }
  if (RAPIDJSON_UNLIKELY(!success)) {
    RAPIDJSON_PARSE_ERROR(kParseErrorTermination, is.Tell());
  }
}

// RapidJSON's number parse, specialized for the fast path (numbers as text): the number's bytes are found
// and checked against the JSON grammar where they lie and handed over as text, never converted or copied
// (a number across a chunk boundary is collected first). Anything but one valid number is a parse error,
// which leaves the fast path.
template <>
template <>
inline void
rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, neuron_gate::trace_reader::CappedAllocator>::ParseNumber<
    rapidjson::kParseNumbersAsStringsFlag, neuron_gate::trace_reader::RapidStream, neuron_gate::trace_reader::RapidSax>(
    neuron_gate::trace_reader::RapidStream& is, neuron_gate::trace_reader::RapidSax& handler) {
  using neuron_gate::trace_reader::json_number;
  const char* const start = is.cursor();
  const std::size_t run = neuron_gate::trace_reader::number_run(start, is.chunk_end());
  bool success = false;
  if (start + run != is.chunk_end()) {
    if (!json_number(std::string_view(start, run))) {
      RAPIDJSON_PARSE_ERROR(kParseErrorValueInvalid, is.Tell());
    }
    is.skip(run);
    success = handler.RawNumber(start, static_cast<SizeType>(run), false);
  } else {
    std::string text;
    while (neuron_gate::trace_reader::number_char(is.Peek())) {
      if (text.size() > handler.max_string()) {
        throw neuron_gate::trace_reader::FastPathStop{};
      }
      text.push_back(is.Take());
    }
    if (!json_number(text)) {
      RAPIDJSON_PARSE_ERROR(kParseErrorValueInvalid, is.Tell());
    }
    success = handler.RawNumber(text.data(), static_cast<SizeType>(text.size()), true);
  }
  if (RAPIDJSON_UNLIKELY(!success)) {
    RAPIDJSON_PARSE_ERROR(kParseErrorTermination, is.Tell());
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
  RapidSax handler(sax, stream);
  CappedAllocator allocator;
  rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, CappedAllocator> parser(&allocator);
  try {
    const rapidjson::ParseResult result = parser.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, handler);
    return !result.IsError() && !handler.stopped();
  } catch (const FastPathStop&) {
    return false;
  }
}

}  // namespace neuron_gate::trace_reader
