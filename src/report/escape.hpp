#pragma once
// One escaping function per output format for every string that comes from a profile, a manifest, a
// rules file or a file name (issue 11 item 1, issue 15 item 4). Every string from the data is hostile:
// it may hold invalid UTF-8, control characters, Unicode line breaks, markup of the output format, or
// a GitHub workflow command. None of these functions throws, whatever the bytes.
//
// Shared rules (sanitize_text): invalid UTF-8 (bad, overlong, surrogate, out of range, cut sequences)
// becomes U+FFFD, one per maximal invalid subpart (util/utf8.hpp); C0 controls and DEL become their visible Control
// Pictures (LF -> ␊, CR -> ␍, ESC -> ␛, tab -> ␉); C1 controls become U+FFFD except NEL (U+0085), which like U+2028 and
// U+2029 becomes ␤ (U+2424); the noncharacters U+FFFE and U+FFFF and the bidirectional formatting
// characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: they reorder the text shown around
// them) become U+FFFD. So no data string can break a line, end a table row, reorder the report's own
// words, or carry a terminal escape sequence in any output.

#include <cstddef>
#include <string>
#include <string_view>

#include "util/utf8.hpp"  // valid_utf8: text as valid UTF-8, control characters kept (JSON)

namespace neuron_gate {

// `text` as valid UTF-8 with control characters, Unicode line breaks and U+FFFE/U+FFFF neutralised as
// described at the top of this file. The base of every escaper below.
std::string sanitize_text(std::string_view text, std::size_t* replaced = nullptr);

// Text inside a GFM paragraph, list item or table cell, shown as typed: sanitized, then `\` ` * _ ~ [ ]
// ! # | $ backslash-escaped (`_` only where it could start or end emphasis), < > & as entities, `@` followed by U+2060
// WORD JOINER (no @mention),
// `//` and `www.` split by U+2060 (no autolink), `#` before a digit and `GH-` before a digit split (no
// issue link), `:` opening an emoji shortcode (":white_check_mark:") split (no emoji), and a leading
// list marker or rule (`-`, `+`, `=`, `1.`) escaped. Markup of the text (headings, links, images, HTML, comments such
// as "<!-- neuron-gate -->") can therefore never be produced.
std::string escape_markdown(std::string_view text);

// Text that may hold `code` spans between backtick pairs (a read warning, a condition value): each
// pair's content through markdown_code, the rest through escape_markdown; an unmatched backtick is
// escaped, so it cannot swallow the rest of the line or leave the markup after it live.
std::string markdown_spans(std::string_view text, bool in_table = true);

// `text` as a GFM inline code span, fence included: sanitized; the fence is one backtick longer than the
// longest run of backticks inside (padded with a space where the text starts or ends with one). With
// `in_table`, `|` becomes `\|` (GFM removes the backslash in table cells, even inside code spans).
std::string markdown_code(std::string_view text, bool in_table = true);

// HTML element content or a double- or single-quoted attribute value: sanitized, & < > " ' as entities.
std::string escape_html(std::string_view text);

// Text that may hold `code` spans (as markdown_spans) as HTML: escaped, backtick pairs as <code>.
std::string html_spans(std::string_view text);

// XML 1.0 element content or attribute value (JUnit): sanitized (so only characters XML 1.0 allows
// remain: no C0 control, no U+FFFE/U+FFFF, no lone surrogate), & < > " ' as entities.
std::string escape_xml(std::string_view text);

// GitHub workflow command data (the message after `::`): sanitized, then % CR LF as %25 %0D %0A (the
// runner's own escapes; CR and LF cannot survive sanitize_text, % must). A data string can then never
// start a new workflow command line such as `::stop-commands::`.
std::string escape_workflow_data(std::string_view text);

// A workflow command property value (title=..., file=...): as escape_workflow_data, plus `:` as %3A and
// `,` as %2C, so a value cannot end the property list or start the message.
std::string escape_workflow_property(std::string_view text);

// Text for a terminal or a log (stderr messages, `inspect`): sanitized, so no control character or
// escape sequence reaches the terminal, and a data string cannot start a line, so it cannot start a
// workflow command (`::stop-commands::`, `::error::`), which a runner reads only at a line start.
std::string escape_terminal(std::string_view text);

// --- Prose that mixes the report's own text with data strings ------------------------------------
// The report's sentences (interpretations, open hypotheses) are built before they are rendered into
// Markdown, HTML, XML or plain text. The report's own words may use `backtick` code spans; a data
// string is put in with prose_code (shown as code) or prose_text (shown as text), which sanitize it
// and wrap it between control characters that sanitized data can never contain. The prose_* renderers
// then escape each data string for their format.

// A data string shown as code (an op or metric name, a file name).
std::string prose_code(std::string_view data);

// A data string shown as plain text (a manifest value, a waiver reason, a warning).
std::string prose_text(std::string_view data);

// A prose line as GFM: own text as written (its `code` spans kept), data through markdown_code
// (in_table false) and escape_markdown.
std::string prose_markdown(std::string_view prose);

// A prose line inside a GFM table cell: as prose_markdown, but code data through markdown_code with
// in_table (`|` as `\|`), and each data piece first cut in the middle to at most `max_data_chars` code
// points (util/text.hpp shorten_middle; 0: not cut), so that a long name cannot widen the table past
// GitHub's comment column.
std::string prose_markdown_cell(std::string_view prose, std::size_t max_data_chars);

// A prose line as HTML: own text escaped with its backtick pairs as <code>, data escaped.
std::string prose_html(std::string_view prose);

// A prose line as plain text (JSON, JUnit before XML escaping, annotations before workflow escaping):
// code data between backticks, text data as it is (sanitized).
std::string prose_plain(std::string_view prose);

// The inverse of prose_plain for text that is not trusted (a JSON report read back by `render`): each
// pair of backticks becomes code data (prose_code), everything else text data (prose_text), so no
// piece is own text and every renderer escapes all of it.
std::string untrusted_prose(std::string_view plain);

}  // namespace neuron_gate
