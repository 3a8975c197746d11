#pragma once
// Structure checks of a whole-document JSON input that nlohmann's DOM parser does not make: nesting
// depth (checked before parsing, so that a few kilobytes of '[' cannot take gigabytes as nested values)
// and duplicate keys in one object (checked after, where RFC 8259 leaves the value read unspecified and
// nlohmann keeps the last one silently).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace neuron_gate {

// Deepest nesting of arrays and objects a whole-document JSON input may have (traces: their own reader).
inline constexpr std::size_t k_max_json_depth = 200;

// A structure fault: what is wrong and the 0-based byte offset in the text scanned.
struct JsonStructureFault {
  std::string problem;  // "nesting deeper than 200 arrays and objects", "duplicate key \"by_shape\""
  std::uint64_t byte = 0;
};

// The first '[' or '{' opening level k_max_json_depth + 1 of `text`, if any. Strings (with escapes) and,
// when `comments`, // and /* */ comments are skipped; anything else is not validated. O(size), no memory.
std::optional<JsonStructureFault> find_too_deep_nesting(std::string_view text, bool comments);

// The first key that repeats an earlier key of the same object (compared after unescaping), if any.
// `text` should be JSON nlohmann parsed (json_input.cpp refuses a NUL byte first); comments as above. The
// offset is the repeated key's quote. A key that is not a JSON string is compared as written.
std::optional<JsonStructureFault> find_duplicate_key(std::string_view text, bool comments);

}  // namespace neuron_gate
