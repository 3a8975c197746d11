#pragma once
// Bounds what a JSON lexer holds at once. nlohmann's lexer keeps every byte of the token it is reading
// and, until the next string, number or literal starts, every byte of white space and punctuation before
// it (brackets, commas, colons: `[[],[],...]` is one run); its error message
// repeats them. So before a parser sees the text, this guard follows it, chunk by chunk, and finds the
// first run longer than the limit (input_limits().max_string_bytes): a string (escapes as written), a
// number or literal, or white space and punctuation between two of those. Real files have none: a trace's
// longest string is a stack or a name of kilobytes, its numbers are timestamps.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neuron_gate {

// A run over the limit: the problem in words and the 0-based byte offset of its first byte past the limit.
struct JsonRunFault {
  std::string problem;  // "a JSON string longer than the limit of 1 MiB (NEURON_GATE_MAX_STRING_BYTES)"
  std::uint64_t byte = 0;
};

class JsonRunGuard {
 public:
  // `limit`: the longest run allowed, in bytes (input_limits().max_string_bytes).
  explicit JsonRunGuard(std::uint64_t limit) : m_limit(limit) {}

  // Follows the next `chunk` of the text (chunks in order, from the first byte). Returns the first
  // fault, if any; after a fault the guard is not fed again. O(chunk size), no memory. JSON comments are
  // not understood (inputs read with comments are not guarded).
  std::optional<JsonRunFault> feed(std::string_view chunk);

 private:
  enum class Run : std::uint8_t { filler, token, string, escape };
  JsonRunFault fault(std::uint64_t at) const;

  std::uint64_t m_limit = 0;
  std::uint64_t m_offset = 0;  // bytes fed before the current chunk
  std::uint64_t m_run = 0;     // bytes of the current run
  Run m_state = Run::filler;
};

}  // namespace neuron_gate
