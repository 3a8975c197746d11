#pragma once
// Report -> GitHub-flavoured Markdown for the PR comment and $GITHUB_STEP_SUMMARY (DESIGN.md section 6).

#include "report/report.hpp"

#include <cstddef>
#include <string>

namespace neuron_gate {

// The hidden marker that lets the GitHub Action find and update its one sticky comment.
inline constexpr const char* k_sticky_marker = "<!-- neuron-gate -->";

// What is wrong with a comment key, "" when nothing: 1 to 64 characters of A-Z a-z 0-9 . _ - (so the
// marker line that carries it can hold nothing else).
std::string comment_key_problem(const std::string& key);

// The marker line of a report: k_sticky_marker without a key, "<!-- neuron-gate key=KEY -->" with one
// (the Action's finder matches this whole line as a comment's first line). `key` must pass
// comment_key_problem.
std::string sticky_marker(const std::string& key);

// GitHub's limit on a comment body, in characters.
inline constexpr std::size_t k_comment_limit = 65536;

// Renders the report. First line: the verdict line. Sections in order: Conditions held fixed,
// Measurements, Interpretations, Open hypotheses, Provenance. The result is shorter than
// `max_chars` (counted in bytes, which bounds characters): rows of the full tables are cut, least
// changed first, and the text says how many were cut.
// The marker line at the end is sticky_marker(comment_key).
std::string render_markdown(const Report& report, std::size_t max_chars = k_comment_limit - 512,
                            const std::string& comment_key = "");

// The same report without the marker line, for one operating point's folded detail inside a report of
// several (points_report.hpp). Shorter than `max_chars` as render_markdown.
std::string render_markdown_detail(const Report& report, std::size_t max_chars);

// Names in Markdown table cells are cut in the middle to this many code points (util/text.hpp
// shorten_middle), so a table fits GitHub's comment column whatever the names; JSON and HTML have them whole.
inline constexpr std::size_t k_cell_name_chars = 32;

// `markdown` cut to at most `max_chars` bytes at a line end, never inside a line (so never inside a code span,
// a table row or a UTF-8 character), with a code fence it leaves open closed and each <details> it leaves open
// closed, then `note`. For a report whose parts overflow a comment: a cut inside a code span would make the
// data in it live Markdown.
std::string cut_at_lines(const std::string& markdown, std::size_t max_chars, const std::string& note);

}  // namespace neuron_gate
