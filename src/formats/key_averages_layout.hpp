#pragma once
// The printed layout of a `key_averages()` table (PyTorch profiler_util.py `_build_table`): lines,
// the dash line whose runs of '-' give the column spans, and the header texts. Internal to the
// key_averages reader (key_averages_table.cpp); NEURON-FORMATS.md section 4.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate::key_averages {

// One line of the text.
struct Line {
  std::string_view text;   // without the line break and a trailing '\r'
  std::size_t number = 0;  // 1-based
  std::size_t offset = 0;  // byte offset of the line's first character in the text
};

// The lines of `text` split at '\n' (a trailing '\r' dropped); views into `text`.
std::vector<Line> split_lines(std::string_view text);

// `text` without leading and trailing spaces and tabs.
std::string_view trim(std::string_view text);

// True when the line holds only spaces and tabs.
bool is_blank(std::string_view text);

// `text` in double quotes for a message, cut to 80 characters + "..." (a whole line can be long).
std::string quote(std::string_view text);

// "line N: ", the start of every message about a line.
std::string line_prefix(const Line& line);

// Half-open character range [begin, end) of one column, from the dash line.
struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool operator==(const Span&) const = default;
};

// The runs of '-' of a dash line (starting in column 0, at least two runs, only '-' and spaces);
// nullopt for any other line.
std::optional<std::vector<Span>> dash_spans(std::string_view line);

// Header texts: separated by two or more spaces, each with single spaces only ("Self CPU %").
std::vector<std::string_view> split_header(std::string_view line);

// True for a header line: at least two texts, the first "Name".
bool is_header_line(std::string_view line);

// True for PyTorch's `"=" * line_length` above a caption: only '=', `width` long once trimmed.
bool is_equals_line(std::string_view line, std::size_t width);

}  // namespace neuron_gate::key_averages
