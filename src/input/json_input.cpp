#include "input/json_input.hpp"

#include "input/byte_source.hpp"
#include "input/json_run_guard.hpp"
#include "input/json_structure.hpp"
#include "util/input_limits.hpp"
#include "util/spellcheck.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <new>

namespace neuron_gate {

namespace {

// Matched as whole tokens only (see non_finite_token_length), so their order does not matter.
constexpr std::array<std::string_view, 13> k_non_finite_tokens = {
    "-Infinity", "+Infinity", "Infinity", "-NaN", "+NaN", "-nan", "-inf", "+inf", "NaN", "nan", "inf", "-NAN", "NAN"};

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

}  // namespace

std::size_t non_finite_token_length(std::string_view text, std::size_t at) {
  if (at > 0 && is_word_char(text[at - 1])) {
    return 0;
  }
  for (const std::string_view token : k_non_finite_tokens) {
    if (text.substr(at, token.size()) == token) {
      const std::size_t end = at + token.size();
      if (end == text.size() || !is_word_char(text[end])) {
        return token.size();
      }
    }
  }
  return 0;
}

namespace {

// Records where nlohmann's SAX parser gives up. `position` counts the characters read, the offending one
// included. When the offending token is a whole string literal (a missing comma before a key, the commonest
// fault) or a number too large, the offset is its first byte; otherwise it is the character at which nlohmann
// stopped. (The `last_token` text is not always one token, and it writes each control character as "<U+00XX>".)
class SyntaxErrorLocator : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return true; }
  bool boolean(bool /*value*/) override { return true; }
  bool number_integer(number_integer_t /*value*/) override { return true; }
  bool number_unsigned(number_unsigned_t /*value*/) override { return true; }
  bool number_float(number_float_t /*value*/, const string_t& /*text*/) override { return true; }
  bool string(string_t& /*value*/) override { return true; }
  bool binary(binary_t& /*value*/) override { return true; }
  bool start_object(std::size_t /*size*/) override { return true; }
  bool key(string_t& /*value*/) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t /*size*/) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& error) override {
    m_found = true;
    const bool string_token = last_token.size() >= 2 && last_token.front() == '"' && last_token.back() == '"' &&
                              last_token.find("<U+") == std::string::npos &&
                              last_token.find('"', 1) == last_token.size() - 1;
    // Error 406, a number too large for a double, names the number token alone.
    if ((string_token || error.id == 406) && position >= last_token.size()) {
      m_offset = position - last_token.size();
    } else {
      m_offset = position > 0 ? position - 1 : 0;
    }
    m_reason = json_exception_reason(error);  // the line and column would count the nulled text
    return false;
  }

  bool found() const { return m_found; }
  std::uint64_t offset() const { return m_offset; }
  const std::string& reason() const { return m_reason; }

 private:
  bool m_found = false;
  std::uint64_t m_offset = 0;
  std::string m_reason;
};

}  // namespace

NulledJson null_non_finite_tokens(std::string_view json_text) {
  NulledJson out;
  out.text.reserve(json_text.size() + 16);
  bool in_string = false;
  std::size_t at = 0;
  while (at < json_text.size()) {
    const char c = json_text[at];
    if (in_string) {
      out.text += c;
      if (c == '\\' && at + 1 < json_text.size()) {
        out.text += json_text[at + 1];
        at += 2;
        continue;
      }
      in_string = c != '"';
      ++at;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == 'N' || c == 'n' || c == 'I' || c == 'i' || c == '-' || c == '+') {
      const std::size_t length = non_finite_token_length(json_text, at);
      if (length > 0) {
        out.text += "null";
        if (length == 3) {
          out.grown_at.push_back(out.text.size() - 1);
        } else {
          out.text.append(length - 4, ' ');
        }
        ++out.replaced;
        at += length;
        continue;
      }
    }
    out.text += c;
    ++at;
  }
  return out;
}

InputError json_syntax_error(const NulledJson& nulled, const std::string& path, bool comments) {
  SyntaxErrorLocator locator;
  nlohmann::json::sax_parse(nulled.text, &locator, nlohmann::json::input_format_t::json, true, comments);
  if (!locator.found()) {
    return InputError(path, "not valid JSON");
  }
  const std::uint64_t offset = std::min<std::uint64_t>(locator.offset(), nulled.text.size());
  return InputError(path, "not valid JSON: " + locator.reason(), original_byte_offset(nulled, offset));
}

std::uint64_t original_byte_offset(const NulledJson& nulled, std::uint64_t offset) {
  const auto grown_before =
      std::lower_bound(nulled.grown_at.begin(), nulled.grown_at.end(), offset) - nulled.grown_at.begin();
  return offset - static_cast<std::uint64_t>(grown_before);
}

InputText read_input_text(ByteSource& source) {
  InputText input;
  input.path = source.path();
  input.gzip = source.is_gzip();
  try {
    for (std::string_view chunk = source.next(); !chunk.empty(); chunk = source.next()) {
      input.text.append(chunk);
    }
  } catch (const std::bad_alloc&) {
    throw InputError(input.path, "out of memory after reading " + byte_count_text(source.bytes_read()) +
                                     " (the input limit is " + byte_count_text(input_limits().max_file_bytes) + ")");
  }
  input.sha256 = source.raw_sha256();
  return input;
}

InputText read_input_text(const std::string& path) {
  ByteSource source(path);
  return read_input_text(source);
}

JsonDocument parse_json_input(std::string_view text, const std::string& path, const JsonReadOptions& options) {
  std::size_t bom = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    bom = 3;
    text.remove_prefix(3);
  }
  JsonDocument document;
  NulledJson nulled;
  if (options.non_finite_as_null) {
    nulled = null_non_finite_tokens(text);
  } else {
    nulled.text = std::string(text);
  }
  document.non_finite_replaced = nulled.replaced;
  const auto structure_error = [&](const JsonStructureFault& fault) {
    return InputError(path, "not valid JSON for neuron-gate: " + fault.problem, fault.byte + bom);
  };
  // JSON text holds no NUL byte (not even in strings); nlohmann's lexer would end the input there and
  // silently ignore whatever follows.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    throw InputError(path, "not valid JSON: a NUL byte, which JSON text never holds", nul + bom);
  }
  if (const auto deep = find_too_deep_nesting(text, options.comments)) {
    throw structure_error(*deep);
  }
  if (!options.comments) {  // rules files, the one input with comments, are small and written by hand
    JsonRunGuard guard(input_limits().max_string_bytes);
    if (const auto fault = guard.feed(text)) {
      throw InputError(path, "not valid JSON for neuron-gate: " + fault->problem, fault->byte + bom);
    }
  }
  try {
    document.value = nlohmann::json::parse(nulled.text, options.callback, true, options.comments);
  } catch (const nlohmann::json::exception& /*error*/) {
    const InputError error = json_syntax_error(nulled, path, options.comments);
    throw InputError(path, error.problem(),
                     error.byte_offset() ? std::optional<std::uint64_t>(*error.byte_offset() + bom) : std::nullopt);
  } catch (const std::bad_alloc&) {
    throw InputError(path, "out of memory while parsing JSON of " + byte_count_text(text.size()));
  }
  if (const auto duplicate = find_duplicate_key(text, options.comments)) {
    throw structure_error(*duplicate);
  }
  return document;
}

JsonDocument read_json_input(const std::string& path, const JsonReadOptions& options) {
  const InputText input = read_input_text(path);
  return parse_json_input(input.text, path, options);
}

std::string json_exception_reason(const nlohmann::json::exception& error) {
  std::string_view reason = error.what();
  const auto bracket = reason.find("] ");
  if (reason.starts_with("[json.exception.") && bracket != std::string_view::npos) {
    reason.remove_prefix(bracket + 2);
  }
  const auto colon = reason.find(": ");
  if (reason.starts_with("parse error") && colon != std::string_view::npos) {
    reason.remove_prefix(colon + 2);
  }
  // nlohmann quotes what it read of the failing token and the white space before it ("last read: '...'",
  // then perhaps "; expected <a token's name>") or a whole number ("number overflow parsing '...'"): keep
  // the last 40 bytes of the quote.
  constexpr std::size_t k_quoted_bytes = 40;
  std::size_t open = reason.find("last read: '");
  open = open != std::string_view::npos ? open + 11 : reason.find("parsing '");
  if (open == std::string_view::npos) {
    return std::string(reason);
  }
  open = reason.find('\'', open);
  std::size_t close = reason.rfind("'; expected ");
  if (close == std::string_view::npos || close <= open || reason.size() - close > 48) {
    close = reason.size() - 1;  // token names are short: a longer tail is the quote's own text
  }
  if (reason[close] != '\'' || close - open - 1 <= k_quoted_bytes) {
    return std::string(reason);
  }
  std::size_t cut = close - k_quoted_bytes;
  while (cut < close && (static_cast<unsigned char>(reason[cut]) & 0xC0) == 0x80) {
    ++cut;  // never start inside a UTF-8 sequence
  }
  return std::string(reason.substr(0, open + 1)) + "…" + std::string(reason.substr(cut));
}

void JsonFields::fail(const std::string& problem) const {
  throw InputError(m_path, problem);
}

std::string JsonFields::shown(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  constexpr std::size_t k_shown_bytes = 60;
  if (text.size() > k_shown_bytes) {
    std::size_t cut = k_shown_bytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
      --cut;  // never cut inside a UTF-8 sequence
    }
    text = text.substr(0, cut) + "…";
  }
  return text;
}

void JsonFields::check_keys(const nlohmann::json& value, const std::string& where,
                            std::initializer_list<std::string_view> allowed) const {
  object(value, where.empty() ? "the top level" : where);
  const std::vector<std::string> words(allowed.begin(), allowed.end());
  for (const auto& item : value.items()) {
    if (std::find(words.begin(), words.end(), item.key()) == words.end()) {
      const std::string key = where.empty() ? item.key() : where + "." + item.key();
      std::string problem = "unknown key \"" + key + "\"";
      if (const auto suggestion = closest_word(item.key(), words)) {
        problem += ", did you mean \"" + *suggestion + "\"?";
      }
      fail(problem);
    }
  }
}

const nlohmann::json& JsonFields::object(const nlohmann::json& value, const std::string& where) const {
  if (!value.is_object()) {
    fail("\"" + where + "\" must be an object, not " + shown(value));
  }
  return value;
}

const nlohmann::json& JsonFields::array(const nlohmann::json& value, const std::string& where) const {
  if (!value.is_array()) {
    fail("\"" + where + "\" must be an array, not " + shown(value));
  }
  return value;
}

std::string JsonFields::string(const nlohmann::json& value, const std::string& where) const {
  if (!value.is_string()) {
    fail("\"" + where + "\" must be a string, not " + shown(value));
  }
  return value.get<std::string>();
}

double JsonFields::number(const nlohmann::json& value, const std::string& where) const {
  if (!value.is_number() || !std::isfinite(value.get<double>())) {
    fail("\"" + where + "\" must be a finite number, not " + shown(value));
  }
  return value.get<double>();
}

}  // namespace neuron_gate
