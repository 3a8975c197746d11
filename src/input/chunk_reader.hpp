#pragma once
// The byte stream of a trace in chunks (internal to the trace reader, kineto_trace.cpp): read through
// RapidStream (trace_rapidjson.hpp) on the fast path, or as an input iterator for nlohmann's SAX parser;
// one pointer comparison per character on the hot path, a ByteSource::next() call per chunk, and for
// nlohmann a guard that refuses a run longer than the string limit before the parser holds it (JsonRunGuard).

#include "input/byte_source.hpp"
#include "input/json_run_guard.hpp"
#include "input/span_hash.hpp"
#include "util/error.hpp"
#include "util/input_limits.hpp"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace neuron_gate::trace_reader {

// The byte stream as an input iterator for nlohmann's iterator input adapter: one pointer
// comparison per character on the hot path, a ByteSource::next() call per chunk.

class ChunkReader {
 public:
  // `guard_runs`: refuse a string, number or run of white space and punctuation longer than the string limit
  // as each chunk is loaded (JsonRunGuard; for nlohmann's parser, which would hold it whole); the RapidJSON
  // path leaves such files to nlohmann's pass.
  explicit ChunkReader(ByteSource& source, bool guard_runs = true) : m_source(source) {
    if (guard_runs) {
      m_guard.emplace(input_limits().max_string_bytes);
    }
  }

  // Loads the next chunk; false at the end of the data.
  bool fill() {
    if (m_span != nullptr) {
      m_span_hash.update(m_span, m_end);
    }
    m_chunk_offset += static_cast<std::uint64_t>(m_end - m_begin);
    const std::string_view chunk = m_source.next();
    if (m_guard) {
      if (const auto fault = m_guard->feed(chunk)) {
        throw InputError(m_source.path(), fault->problem, fault->byte);
      }
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
  ByteSource& m_source;
  const char* m_span = nullptr;  // start of the hashed span in the current chunk; null = none
  SpanHash m_span_hash;
  std::uint64_t m_chunk_offset = 0;
  bool m_at_end = false;
  std::optional<JsonRunGuard> m_guard;
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

}  // namespace neuron_gate::trace_reader
