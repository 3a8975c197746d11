#include "report/terminal.hpp"

#include "report/escape.hpp"

#include <algorithm>

namespace neuron_gate {
namespace {

// Printed width of UTF-8 text, counting code points (the summary's text is mostly ASCII and µ).
std::size_t width(const std::string& text) {
  return static_cast<std::size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string padded(const std::string& text, std::size_t to, bool right) {
  const std::string fill(to > width(text) ? to - width(text) : 0, ' ');
  return right ? fill + text : text + fill;
}

const char* outcome_colour(Outcome outcome) {
  switch (outcome) {
  case Outcome::pass:
    return "\x1b[1;32m";
  case Outcome::regression:
  case Outcome::not_comparable:
    return "\x1b[1;31m";
  case Outcome::no_decision:
    return "\x1b[1;33m";
  }
  return "\x1b[1m";
}

}  // namespace

std::string render_terminal(const Report& report, bool colour, const std::vector<std::string>& written) {
  const std::string headline = escape_terminal(prose_plain(report.verdict_line));
  std::string text = colour ? std::string(outcome_colour(report.outcome)) + headline + "\x1b[0m\n" : headline + "\n";
  text += escape_terminal(prose_plain(report.context_line)) + "\n";
  std::vector<std::vector<std::string>> rows;
  for (const SummaryLine& line : report.summary_lines) {
    rows.push_back({escape_terminal(prose_plain(line.name)), escape_terminal(line.change), escape_terminal(line.base),
                    escape_terminal(line.head), escape_terminal(prose_plain(line.note))});
  }
  if (!rows.empty()) {
    std::vector<std::size_t> widths(5, 0);
    for (const auto& row : rows) {
      for (std::size_t c = 0; c < row.size(); ++c) {
        widths[c] = std::max(widths[c], std::min<std::size_t>(width(row[c]), 48));
      }
    }
    text += "\n";
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const bool deciding = report.summary_lines[r].role == SummaryRole::deciding;
      std::string line = "  " + padded(rows[r][0], widths[0], false) + "  " + padded(rows[r][1], widths[1], true) +
                         "  " + padded(rows[r][2], widths[2], true) + " → " + padded(rows[r][3], widths[3], true) +
                         "  " + rows[r][4];
      text += (colour && deciding ? "\x1b[1m" + line + "\x1b[0m" : line) + "\n";
    }
    for (const SummaryLine& line : report.summary_lines) {
      if (!line.medians_note.empty()) {
        text += "  " + std::string(k_medians_mark) + " " + escape_terminal(prose_plain(line.medians_note)) + "\n";
      }
    }
  }
  std::string files;
  for (const std::string& path : written) {
    files += path.empty() ? "" : (files.empty() ? "" : ", ") + escape_terminal(path);
  }
  text +=
      "\n" +
      (files.empty() ? std::string("Full report: run with --format markdown, or write --markdown/--html/--json FILE")
                     : "Full reports: " + files) +
      "\n";
  return text;
}

}  // namespace neuron_gate
