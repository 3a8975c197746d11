#include "input/json_run_guard.hpp"

#include "util/input_limits.hpp"

namespace neuron_gate {
namespace {

// White space and the structural characters other than '"': what lies between two scalars.
bool is_filler(char c) {
  switch (c) {
  case ' ':
  case '\t':
  case '\n':
  case '\r':
  case '[':
  case ']':
  case '{':
  case '}':
  case ',':
  case ':':
    return true;
  default:
    return false;
  }
}

}  // namespace

JsonRunFault JsonRunGuard::fault(std::uint64_t at) const {
  const std::string limit = byte_count_text(m_limit);
  switch (m_state) {
  case Run::filler:
    return {"more than " + limit +
                " of white space and punctuation ([]{},:) with no string, number or literal "
                "between (the limit of NEURON_GATE_MAX_STRING_BYTES)",
            at};
  case Run::token:
    return {"a JSON number or literal longer than the limit of " + limit + " (NEURON_GATE_MAX_STRING_BYTES)", at};
  default:
    return {"a JSON string longer than the limit of " + limit + " (NEURON_GATE_MAX_STRING_BYTES)", at};
  }
}

std::optional<JsonRunFault> JsonRunGuard::feed(std::string_view chunk) {
  std::size_t at = 0;
  while (at < chunk.size()) {
    if (m_state == Run::string || m_state == Run::escape) {
      // The string's bytes up to its closing quote, escapes as written (a backslash and the byte after it).
      std::size_t end = at + 1;
      std::size_t stop = std::string_view::npos;
      if (m_state == Run::string) {
        stop = chunk.find_first_of("\"\\", at);
        end = stop == std::string_view::npos ? chunk.size() : stop;
      }
      m_run += end - at;
      if (m_run > m_limit) {
        return fault(m_offset + end - (m_run - m_limit));
      }
      at = end;
      if (m_state == Run::escape) {
        m_state = Run::string;
      } else if (stop != std::string_view::npos) {
        m_state = chunk[stop] == '"' ? Run::filler : Run::escape;
        m_run = m_state == Run::filler ? 0 : m_run + 1;
        ++at;
      }
      continue;
    }
    const char c = chunk[at];
    const Run next = c == '"' ? Run::string : is_filler(c) ? Run::filler : Run::token;
    if (next != m_state) {
      m_state = next;
      m_run = 0;
    }
    ++at;
    if (next != Run::string && ++m_run > m_limit) {
      return fault(m_offset + at - 1);
    }
  }
  m_offset += chunk.size();
  return std::nullopt;
}

}  // namespace neuron_gate
