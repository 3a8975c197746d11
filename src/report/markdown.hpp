#pragma once
// Report -> GitHub-flavoured Markdown for the PR comment and $GITHUB_STEP_SUMMARY (DESIGN.md section 6).

#include "report/report.hpp"

#include <cstddef>
#include <string>

namespace neuron_gate {

// The hidden marker that lets the GitHub Action find and update its one sticky comment.
inline constexpr const char* k_sticky_marker = "<!-- neuron-gate -->";

// GitHub's limit on a comment body, in characters.
inline constexpr std::size_t k_comment_limit = 65536;

// Renders the report. First line: the verdict line. Sections in order: Conditions held fixed,
// Measurements, Interpretations, Open hypotheses, Provenance. The result is shorter than
// `max_chars` (counted in bytes, which bounds characters): rows of the full tables are cut, least
// changed first, and the text says how many were cut.
std::string render_markdown(const Report& report, std::size_t max_chars = k_comment_limit - 512);

} // namespace neuron_gate
