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

// The conditions that made the comparison NOT COMPARABLE, one aligned line each with both values and the
// note; "" when none differs unaccepted.
std::string differing_conditions(const Report& report) {
  std::vector<const ConditionRow*> differing;
  std::size_t name_width = 0;
  for (const ConditionRow& row : report.conditions.rows) {
    if (!row.matches && !row.accepted) {
      differing.push_back(&row);
      name_width = std::max(name_width, std::min<std::size_t>(width(escape_terminal(row.name)), 32));
    }
  }
  if (differing.empty()) {
    return "";
  }
  std::string text = "\n" + std::string(differing.size() == 1 ? "Condition that differs" : "Conditions that differ") +
                     " (profile both sides alike, or accept one with --allow-mismatch NAME):\n";
  for (const ConditionRow* row : differing) {
    text += "  " + padded(escape_terminal(row->name), name_width, false) + "  base " + escape_terminal(row->base) +
            " → head " + escape_terminal(row->head) + "\n";
    if (!row->note.empty()) {
      text += "  " + std::string(name_width, ' ') + "  " + escape_terminal(row->note) + "\n";
    }
  }
  return text;
}

}  // namespace

std::string render_terminal_verdict(const Report& report, bool colour) {
  std::string headline = escape_terminal(prose_plain(report.verdict_line));
  if (report.inputs_overlap.kind != InputsOverlapKind::none) {
    headline += std::string(" · ⚠️ ") + inputs_overlap_name(report.inputs_overlap.kind);
  }
  return colour ? std::string(outcome_colour(report.outcome)) + headline + "\x1b[0m\n" : headline + "\n";
}

std::string render_terminal(const Report& report, bool colour, const std::vector<std::string>& written) {
  const std::string headline = escape_terminal(prose_plain(report.verdict_line));
  std::string text = colour ? std::string(outcome_colour(report.outcome)) + headline + "\x1b[0m\n" : headline + "\n";
  text += escape_terminal(prose_plain(report.context_line)) + "\n";
  if (!report.inputs_line.empty()) {
    text += "⚠️ " + escape_terminal(prose_plain(report.inputs_line)) + "\n";
  }
  text += differing_conditions(report);
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
