#include "report/escape.hpp"

#include "util/text.hpp"
#include "util/utf8.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace neuron_gate {
namespace {

constexpr char32_t k_replacement = 0xFFFD;
constexpr std::string_view k_word_joiner = "\xE2\x81\xA0";  // U+2060

// Prose markers: control characters that sanitize_text never lets through.
constexpr char k_code_open = '\x01';
constexpr char k_code_close = '\x02';
constexpr char k_text_open = '\x03';
constexpr char k_text_close = '\x04';

// Calls visit(code point) for each code point of `text`, U+FFFD for each maximal invalid subpart (util/utf8.hpp).
template <typename Visit>
void for_each_code_point(std::string_view text, std::size_t* replaced, Visit&& visit) {
  std::size_t i = 0;
  while (i < text.size()) {
    const CodePointStep step = next_code_point(text, i);
    if (!step.valid && replaced != nullptr) {
      ++*replaced;
    }
    visit(step.code_point);
    i += step.length;
  }
}

// The neutral form of one code point (shared rules in escape.hpp).
char32_t neutral(char32_t cp) {
  if (cp < 0x20) {
    return 0x2400 + cp;  // Control Pictures: ␀ … ␟
  }
  if (cp == 0x7F) {
    return 0x2421;  // ␡
  }
  if (cp == 0x85 || cp == 0x2028 || cp == 0x2029) {
    return 0x2424;  // ␤
  }
  if ((cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF) {
    return k_replacement;
  }
  // Bidirectional formatting (Unicode UAX #9: ALM, LRM, RLM, the embeddings and overrides LRE…RLO, the
  // isolates LRI…PDI): invisible, they reorder what a terminal, browser or GitHub shows around them
  // ("Trojan Source", CVE-2021-42574), so a name could make a report read otherwise.
  if (cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
      (cp >= 0x2066 && cp <= 0x2069)) {
    return k_replacement;
  }
  return cp;
}

bool ascii_digit(char c) {
  return c >= '0' && c <= '9';
}

// `text[at]` is ':' opening an emoji shortcode ":name:" (name of [A-Za-z0-9_+-], which GitHub renders as
// the emoji whatever the escaping, ":white_check_mark:" as ✅).
bool opens_shortcode(std::string_view text, std::size_t at) {
  std::size_t k = at + 1;
  while (k < text.size() && (std::isalnum(static_cast<unsigned char>(text[k])) != 0 || text[k] == '_' ||
                             text[k] == '+' || text[k] == '-')) {
    ++k;
  }
  return k > at + 1 && k < text.size() && text[k] == ':';
}

// `text[end]` is the '-' of "GH-<digit>" at a word start (any case): GitHub links it to that issue.
bool gh_issue_reference(std::string_view text, std::size_t end) {
  return end >= 2 && end + 1 < text.size() && ascii_digit(text[end + 1]) && (text[end - 1] | 0x20) == 'h' &&
         (text[end - 2] | 0x20) == 'g' && (end == 2 || std::isalnum(static_cast<unsigned char>(text[end - 3])) == 0);
}

bool iequals_www(std::string_view text, std::size_t end) {
  if (end < 3) {
    return false;
  }
  for (std::size_t k = end - 3; k < end; ++k) {
    if (text[k] != 'w' && text[k] != 'W') {
      return false;
    }
  }
  return end == 3 || !(std::isalnum(static_cast<unsigned char>(text[end - 4])) != 0);
}

// Sanitized text with one character's replacement looked up per ASCII character.
template <typename Replace>
std::string map_ascii(std::string_view text, Replace&& replace) {
  const std::string clean = sanitize_text(text);
  std::string out;
  out.reserve(clean.size() + clean.size() / 8);
  for (std::size_t i = 0; i < clean.size(); ++i) {
    replace(out, clean, i);
  }
  return out;
}

std::string markup_escape(std::string_view text) {
  return map_ascii(text, [](std::string& out, const std::string& s, std::size_t i) {
    switch (s[i]) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += s[i];
    }
  });
}

std::string workflow_escape(std::string_view text, bool property) {
  return map_ascii(text, [property](std::string& out, const std::string& s, std::size_t i) {
    switch (s[i]) {
    case '%':
      out += "%25";
      break;
    case '\r':
      out += "%0D";
      break;
    case '\n':
      out += "%0A";
      break;
    case ':':
      out += property ? "%3A" : ":";
      break;
    case ',':
      out += property ? "%2C" : ",";
      break;
    default:
      out += s[i];
    }
  });
}

// The pieces of a prose line: own text (kind 0), code data (1), text data (2).
template <typename Visit>
void for_each_piece(std::string_view prose, Visit&& visit) {
  std::size_t i = 0;
  while (i < prose.size()) {
    const std::size_t open = prose.find_first_of(std::string_view("\x01\x03", 2), i);
    if (open == std::string_view::npos) {
      visit(0, prose.substr(i));
      return;
    }
    if (open > i) {
      visit(0, prose.substr(i, open - i));
    }
    const char close = prose[open] == k_code_open ? k_code_close : k_text_close;
    std::size_t end = prose.find(close, open + 1);
    end = end == std::string_view::npos ? prose.size() : end;
    visit(prose[open] == k_code_open ? 1 : 2, prose.substr(open + 1, end - open - 1));
    i = end + 1;
  }
}

// Own prose text as HTML: escaped, backtick pairs as <code>.
std::string own_text_html(std::string_view text) {
  std::string out;
  std::size_t start = 0;
  bool in_code = false;
  while (true) {
    const std::size_t tick = text.find('`', start);
    if (tick == std::string_view::npos || (!in_code && text.find('`', tick + 1) == std::string_view::npos)) {
      out += escape_html(text.substr(start));
      return out + (in_code ? "</code>" : "");
    }
    out += escape_html(text.substr(start, tick - start));
    out += in_code ? "</code>" : "<code>";
    in_code = !in_code;
    start = tick + 1;
  }
}

}  // namespace

std::string sanitize_text(std::string_view text, std::size_t* replaced) {
  std::string out;
  out.reserve(text.size());
  for_each_code_point(text, replaced, [&](char32_t cp) { append_utf8(out, neutral(cp)); });
  return out;
}

namespace {

std::string escape_markdown_inner(std::string_view text) {
  return map_ascii(text, [](std::string& o, const std::string& s, std::size_t i) {
    const char c = s[i];
    switch (c) {
    case '_':
      // Between two letters or digits `_` cannot open or close emphasis (GFM), so it stays bare there.
      if (i == 0 || i + 1 >= s.size() || std::isalnum(static_cast<unsigned char>(s[i - 1])) == 0 ||
          std::isalnum(static_cast<unsigned char>(s[i + 1])) == 0) {
        o += '\\';
      }
      o += c;
      break;
    case '\\':
    case '`':
    case '*':
    case '~':
    case '[':
    case ']':
    case '!':
    case '|':
    case '$':
      o += '\\';
      o += c;
      break;
    case '#':
      o += "\\#";
      if (i + 1 < s.size() && ascii_digit(s[i + 1])) {
        o += k_word_joiner;  // "#12" would link issue 12
      }
      break;
    case '<':
      o += "&lt;";
      break;
    case '>':
      o += "&gt;";
      break;
    case '&':
      o += "&amp;";
      break;
    case '@':
      o += '@';
      o += k_word_joiner;  // no @mention, no e-mail autolink
      break;
    case '/':
      o += '/';
      if (i + 1 < s.size() && s[i + 1] == '/') {
        o += k_word_joiner;  // no scheme:// autolink
      }
      break;
    case '.':
      if (iequals_www(s, i)) {
        o += k_word_joiner;  // no www. autolink
      }
      o += '.';
      break;
    case ':':
      o += ':';
      if (opens_shortcode(s, i)) {
        o += k_word_joiner;  // no emoji shortcode
      }
      break;
    case '-':
      if (gh_issue_reference(s, i)) {
        o += k_word_joiner;  // "GH-3" would link issue 3
      }
      o += '-';
      break;
    default:
      o += c;
    }
  });
}

// A leading list marker ("- x", "+ x", "1. x", "1) x") would open a list inside a list item, and a
// leading "---" a thematic break.
std::string escape_leading_marker(std::string out) {
  const auto marker_end = [&](std::size_t k) { return k + 1 >= out.size() || out[k + 1] == ' '; };
  if (!out.empty() && (out[0] == '-' || out[0] == '+' || out[0] == '=')) {
    out.insert(0, 1, '\\');
  } else if (!out.empty() && ascii_digit(out[0])) {
    std::size_t k = 0;
    while (k < out.size() && ascii_digit(out[k])) {
      ++k;
    }
    if (k < out.size() && (out[k] == '.' || out[k] == ')') && marker_end(k)) {
      out.insert(k, 1, '\\');
    }
  }
  return out;
}

}  // namespace

std::string escape_markdown(std::string_view text) {
  return escape_leading_marker(escape_markdown_inner(text));
}

std::string markdown_spans(std::string_view text, bool in_table) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t open = text.find('`', start);
    const std::size_t close = open == std::string_view::npos ? open : text.find('`', open + 1);
    if (close == std::string_view::npos) {
      return escape_leading_marker(out + escape_markdown_inner(text.substr(start)));
    }
    out += escape_markdown_inner(text.substr(start, open - start));
    out += markdown_code(text.substr(open + 1, close - open - 1), in_table);
    start = close + 1;
  }
  return escape_leading_marker(out);
}

std::string markdown_code(std::string_view text, bool in_table) {
  std::string body = sanitize_text(text);
  std::size_t longest = 0, run = 0;
  for (char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  if (in_table) {
    std::string piped;
    for (char c : body) {
      piped += c == '|' ? std::string("\\|") : std::string(1, c);
    }
    body = std::move(piped);
  }
  if (body.empty()) {
    return "` `";
  }
  const bool pad = body.front() == '`' || body.back() == '`' || (body.front() == ' ' && body.back() == ' ');
  const std::string fence(longest + 1, '`');
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

std::string escape_html(std::string_view text) {
  return markup_escape(text);
}

std::string html_spans(std::string_view text) {
  return own_text_html(sanitize_text(text));
}

std::string escape_xml(std::string_view text) {
  return markup_escape(text);
}

std::string escape_workflow_data(std::string_view text) {
  return workflow_escape(text, false);
}

std::string escape_workflow_property(std::string_view text) {
  return workflow_escape(text, true);
}

std::string escape_terminal(std::string_view text) {
  return sanitize_text(text);
}

std::string prose_code(std::string_view data) {
  return k_code_open + sanitize_text(data) + k_code_close;
}

std::string prose_text(std::string_view data) {
  return k_text_open + sanitize_text(data) + k_text_close;
}

std::string prose_markdown(std::string_view prose) {
  std::string out;
  for_each_piece(prose, [&](int kind, std::string_view piece) {
    out += kind == 0 ? std::string(piece) : kind == 1 ? markdown_code(piece, false) : escape_markdown(piece);
  });
  return out;
}

std::string prose_markdown_cell(std::string_view prose, std::size_t max_data_chars) {
  std::string out;
  for_each_piece(prose, [&](int kind, std::string_view piece) {
    const std::string data = max_data_chars > 0 ? shorten_middle(piece, max_data_chars) : std::string(piece);
    out += kind == 0 ? std::string(piece) : kind == 1 ? markdown_code(data, true) : escape_markdown(data);
  });
  return out;
}

std::string prose_html(std::string_view prose) {
  std::string out;
  for_each_piece(prose, [&](int kind, std::string_view piece) {
    out += kind == 0   ? own_text_html(piece)
           : kind == 1 ? "<code>" + escape_html(piece) + "</code>"
                       : escape_html(piece);
  });
  return out;
}

std::string untrusted_prose(std::string_view plain) {
  std::string out;
  std::size_t start = 0;
  while (start < plain.size()) {
    const std::size_t open = plain.find('`', start);
    const std::size_t close = open == std::string_view::npos ? open : plain.find('`', open + 1);
    if (close == std::string_view::npos) {
      return out + prose_text(plain.substr(start));
    }
    if (open > start) {
      out += prose_text(plain.substr(start, open - start));
    }
    out += prose_code(plain.substr(open + 1, close - open - 1));
    start = close + 1;
  }
  return out;
}

std::string prose_plain(std::string_view prose) {
  std::string out;
  for_each_piece(prose, [&](int kind, std::string_view piece) {
    out += kind == 1 ? "`" + std::string(piece) + "`" : std::string(piece);
  });
  return out;
}

}  // namespace neuron_gate
