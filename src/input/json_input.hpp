#pragma once
// The one reader for every whole-document JSON input (e2e.json, the run manifest, rules files,
// benchmark-tool JSON, Neuron summaries): the bytes come through ByteSource (regular files only,
// plain or gzip by magic bytes, bounded size, hashed as read), a UTF-8 BOM is skipped, and every
// fault is an InputError in one wording:
//   "PATH:byte N: not valid JSON: <reason>"             (syntax; N is the 0-based offset in the
//                                                        decompressed text, BOM included)
//   "PATH: \"metrics[0].better\" must be a string, not 5"  (a value of the wrong type, by key path)
// nlohmann's "[json.exception.…]" prefixes never reach a message. Traces keep their own streaming
// reader (kineto_trace.hpp) on the same ByteSource.

#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

class ByteSource;

// The whole decompressed content of one input file and the SHA-256 of its raw bytes.
struct InputText {
  std::string path;    // as given
  std::string text;    // decompressed bytes, BOM included
  std::string sha256;  // lowercase hex of the file's bytes as stored (compressed, for a .gz)
  bool gzip = false;
};

// Reads the file at `path` whole (ByteSource: regular file, gzip by magic, limit on decompressed
// bytes). Throws InputError naming the path; a failed allocation becomes InputError(path, "out of
// memory ...") too.
InputText read_input_text(const std::string& path);

// The same from an open source (bytes in memory, a git blob).
InputText read_input_text(ByteSource& source);

// How a JSON input is parsed.
struct JsonReadOptions {
  bool comments = false;            // accept // and /* */ comments (rules files)
  bool non_finite_as_null = false;  // read bare NaN / Infinity tokens as null (neuron_summary.hpp NulledJson)
  nlohmann::json::parser_callback_t callback = nullptr;  // nlohmann's parse callback (drop subtrees)
};

// A parsed JSON document and how many non-finite tokens were read as null.
struct JsonDocument {
  nlohmann::json value;
  std::size_t non_finite_replaced = 0;
};

// Parses `text` (a leading UTF-8 BOM skipped). Throws InputError(path, "not valid JSON: <reason>",
// byte offset in `text`) for any syntax error, a number beyond double ("number overflow parsing
// '1e400'") or invalid UTF-8.
JsonDocument parse_json_input(std::string_view text, const std::string& path, const JsonReadOptions& options = {});

// read_input_text() then parse_json_input().
JsonDocument read_json_input(const std::string& path, const JsonReadOptions& options = {});

// nlohmann's message without its "[json.exception.type_error.302] " and "parse error at line 1, column 5: "
// prefixes, its quote of the input ("last read: '...'", "number overflow parsing '...'") cut to its last 40
// bytes after "…" (the quote may hold megabytes of white space, digits or a key).
std::string json_exception_reason(const nlohmann::json::exception& error);

// Type-checked access to a parsed document: every failure is InputError(path, "\"KEY.PATH\" must
// be ..., not VALUE") with the key path written like `metrics[2].better`.
class JsonFields {
 public:
  explicit JsonFields(std::string path) : m_path(std::move(path)) {}

  [[noreturn]] void fail(const std::string& problem) const;
  // `value` must be an object whose keys are all in `allowed` ("unknown key \"where.k\", did you mean ...").
  void check_keys(const nlohmann::json& value, const std::string& where,
                  std::initializer_list<std::string_view> allowed) const;
  const nlohmann::json& object(const nlohmann::json& value, const std::string& where) const;
  const nlohmann::json& array(const nlohmann::json& value, const std::string& where) const;
  std::string string(const nlohmann::json& value, const std::string& where) const;
  // A finite number (integers included).
  double number(const nlohmann::json& value, const std::string& where) const;

  // `value` shown in a message: JSON text, cut to 60 bytes.
  static std::string shown(const nlohmann::json& value);

 private:
  std::string m_path;
};

// JSON text with each bare non-finite token outside strings (NaN, -NaN, +NaN, Infinity, -Infinity, +Infinity,
// nan, -nan, inf, -inf) replaced by `null`, which nlohmann accepts (Google Benchmark and pre-07/2024 Neuron
// tools write them). Tokens of 4 or more bytes keep their length (padded with spaces); a 3-byte token grows
// by one byte, recorded in `grown_at` so that original_byte_offset() can map offsets back.
struct NulledJson {
  std::string text;                   // the replaced text
  std::size_t replaced = 0;           // how many tokens were replaced
  std::vector<std::size_t> grown_at;  // ascending offsets in `text` of the byte added after each 3-byte token
};

// Replaces the bare non-finite tokens of `json_text` by null (see NulledJson). Never throws; malformed JSON is
// left for the parser to report.
NulledJson null_non_finite_tokens(std::string_view json_text);

// The InputError for text that nlohmann rejected (call it from the catch block): re-reads `nulled.text` with a SAX
// parser to find the offending token, and gives the 0-based offset of its first byte in the original text and
// nlohmann's reason, e.g. "PATH:byte 102: not valid JSON: syntax error while parsing object - unexpected string
// literal; expected '}'".
InputError json_syntax_error(const NulledJson& nulled, const std::string& path, bool comments = false);

// Maps a 0-based byte offset in `nulled.text` to the same place in the original text.
std::uint64_t original_byte_offset(const NulledJson& nulled, std::uint64_t offset);

// The length of the bare non-finite token (NaN, -Infinity, nan, ...) starting at `at` in `text` as a whole
// word, or 0 when there is none.
std::size_t non_finite_token_length(std::string_view text, std::size_t at);

}  // namespace neuron_gate
