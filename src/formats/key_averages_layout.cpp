#include "formats/key_averages_layout.hpp"

namespace neuron_gate::key_averages {
namespace {

constexpr std::size_t k_quoted_line_limit = 80;  // longest excerpt of a whole line in a message

}  // namespace

std::vector<Line> split_lines(std::string_view text) {
  std::vector<Line> lines;
  std::size_t start = 0;
  std::size_t number = 1;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const std::size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    lines.push_back(Line{line, number, start});
    ++number;
    start = next;
  }
  return lines;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

bool is_blank(std::string_view text) {
  return trim(text).empty();
}

std::string quote(std::string_view text) {
  std::string quoted = "\"";
  if (text.size() > k_quoted_line_limit) {
    quoted.append(text.substr(0, k_quoted_line_limit));
    quoted += "...";
  } else {
    quoted.append(text);
  }
  return quoted + "\"";
}

std::string line_prefix(const Line& line) {
  return "line " + std::to_string(line.number) + ": ";
}

// The runs of '-' of a dash line (starting in column 0, at least two runs, only '-' and spaces);
// nullopt for any other line.
std::optional<std::vector<Span>> dash_spans(std::string_view line) {
  while (!line.empty() && line.back() == ' ') {
    line.remove_suffix(1);
  }
  if (line.empty() || line.front() != '-') {
    return std::nullopt;
  }
  std::vector<Span> spans;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == ' ') {
      ++i;
      continue;
    }
    if (line[i] != '-') {
      return std::nullopt;
    }
    const std::size_t begin = i;
    while (i < line.size() && line[i] == '-') {
      ++i;
    }
    spans.push_back(Span{begin, i});
  }
  if (spans.size() < 2) {
    return std::nullopt;
  }
  return spans;
}

// Header texts are separated by two or more spaces and contain single spaces only ("Self CPU %").
std::vector<std::string_view> split_header(std::string_view line) {
  std::vector<std::string_view> words;
  line = trim(line);
  std::size_t i = 0;
  while (i < line.size()) {
    std::size_t end = line.find("  ", i);
    if (end == std::string_view::npos) {
      end = line.size();
    }
    words.push_back(trim(line.substr(i, end - i)));
    i = end;
    while (i < line.size() && line[i] == ' ') {
      ++i;
    }
  }
  return words;
}

bool is_header_line(std::string_view line) {
  const std::vector<std::string_view> words = split_header(line);
  return words.size() >= 2 && words.front() == "Name";
}

// PyTorch prints `"=" * line_length`, as wide as the dash line, above a caption.
bool is_equals_line(std::string_view line, std::size_t width) {
  line = trim(line);
  return line.size() == width && line.find_first_not_of('=') == std::string_view::npos;
}

}  // namespace neuron_gate::key_averages
