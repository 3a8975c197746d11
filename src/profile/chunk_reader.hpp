#pragma once
// The byte stream of a trace in chunks (internal to the trace reader, kineto_trace.cpp): read through
// RapidStream (trace_rapidjson.hpp) on the fast path, or as an input iterator for nlohmann's SAX parser;
// one pointer comparison per character on the hot path, a ByteSource::next() call per chunk, and for
// nlohmann a guard that refuses a JSON string longer than the string limit before the parser holds it.

#include "profile/byte_source.hpp"
#include "profile/span_hash.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace neuron_gate::trace_reader {

// The byte stream as an input iterator for nlohmann's iterator input adapter: one pointer
// comparison per character on the hot path, a ByteSource::next() call per chunk.

class ChunkReader {
public:
  // `guard_strings`: follow string literals and refuse one longer than the string limit as each chunk is
  // loaded (for nlohmann's parser, which would hold it whole); the RapidJSON path caps its own buffer.
  explicit ChunkReader(ByteSource& source, bool guard_strings = true)
      : m_source(source), m_max_string(input_limits().max_string_bytes), m_guard_strings(guard_strings) {}

  // Loads the next chunk; false at the end of the data.
  bool fill() {
    if (m_span != nullptr) {
      m_span_hash.update(m_span, m_end);
    }
    m_chunk_offset += static_cast<std::uint64_t>(m_end - m_begin);
    const std::string_view chunk = m_source.next();
    if (m_guard_strings) {
      guard_string_lengths(chunk);
    }
    m_begin = chunk.data();
    m_cur = m_begin;
    m_end = m_begin + chunk.size();
    if (m_span != nullptr) {
      m_span = m_begin;
    }
    if (chunk.empty()) {
      m_at_end = true;
    }
    return !chunk.empty();
  }
  bool at_end() { return m_cur == m_end && (m_at_end || !fill()); }
  // Bytes handed out so far (0-based offset of the next byte).
  std::uint64_t offset() const { return m_chunk_offset + static_cast<std::uint64_t>(m_cur - m_begin); }
  bool reached_end() const { return m_at_end; }
  // The unread part of the current chunk.
  std::string_view peek() const { return {m_cur, static_cast<std::size_t>(m_end - m_cur)}; }

  // Starts hashing the raw bytes from the last byte handed out (the '{' of an event's args object, just
  // read by either parser) on; end_span() adds the bytes up to the last one handed out (its '}') and
  // returns their SpanHash. One span at a time.
  void begin_span() {
    m_span_hash.reset();
    m_span = m_cur - 1;
  }
  std::uint64_t end_span() {
    m_span_hash.update(m_span, m_cur);
    m_span = nullptr;
    return m_span_hash.value();
  }

  const char* m_begin = nullptr;
  const char* m_cur = nullptr;
  const char* m_end = nullptr;

private:
  // Follows string literals across chunks and refuses one longer than the string limit before the parser
  // holds it (a 1 GB name in a 1 MB .gz would otherwise take gigabytes). Escapes count as written.
  void guard_string_lengths(std::string_view chunk) {
    std::size_t at = 0;
    while (at < chunk.size()) {
      if (!m_in_string) {
        const std::size_t quote = chunk.find('"', at);
        if (quote == std::string_view::npos) {
          return;
        }
        m_in_string = true;
        m_string_bytes = 0;
        at = quote + 1;
        continue;
      }
      if (m_escaped) {
        m_escaped = false;
        ++at;
        ++m_string_bytes;
        continue;
      }
      const std::size_t stop = chunk.find_first_of("\"\\", at);
      const std::size_t end = stop == std::string_view::npos ? chunk.size() : stop;
      m_string_bytes += end - at;
      if (m_string_bytes > m_max_string) {
        throw InputError(m_source.path(),
                         "a JSON string longer than the limit of " + byte_count_text(m_max_string) +
                             " (NEURON_GATE_MAX_STRING_BYTES)",
                         m_chunk_offset + end - (m_string_bytes - m_max_string));
      }
      if (stop == std::string_view::npos) {
        return;
      }
      if (chunk[stop] == '"') {
        m_in_string = false;
      } else {
        m_escaped = true;
        ++m_string_bytes;
      }
      at = stop + 1;
    }
  }

  ByteSource& m_source;
  const char* m_span = nullptr;  // start of the hashed span in the current chunk; null = none
  SpanHash m_span_hash;
  std::uint64_t m_chunk_offset = 0;
  bool m_at_end = false;
  std::uint64_t m_max_string = 0;
  bool m_guard_strings = true;
  bool m_in_string = false;
  bool m_escaped = false;
  std::uint64_t m_string_bytes = 0;
};

class ChunkIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ChunkIterator() = default;
  explicit ChunkIterator(ChunkReader* reader) : m_reader(reader) {}

  reference operator*() const { return *m_reader->m_cur; }
  ChunkIterator& operator++() {
    ++m_reader->m_cur;
    return *this;
  }
  ChunkIterator operator++(int) {
    ChunkIterator old = *this;
    ++m_reader->m_cur;
    return old;
  }
  // != is rewritten from == (C++20); defining both left == unused (clang's -Wunused-function).
  friend bool operator==(const ChunkIterator& a, const ChunkIterator& b) { return a.done() == b.done(); }

private:
  bool done() const { return m_reader == nullptr || m_reader->at_end(); }
  ChunkReader* m_reader = nullptr;
};

} // namespace neuron_gate::trace_reader
