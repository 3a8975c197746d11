#include "input/json_structure.hpp"

#include "util/text.hpp"
#include "util/utf8.hpp"

#include <nlohmann/json.hpp>

#include <unordered_set>
#include <vector>

namespace neuron_gate {

namespace {

// Index just past the string whose opening quote is at `at` (the end of `text` when unterminated).
std::size_t string_end(std::string_view text, std::size_t at) {
  for (std::size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    }
  }
  return text.size();
}

// Index just past the comment starting at `at` ("//" or "/*"), or `at` when none starts there.
std::size_t comment_end(std::string_view text, std::size_t at, bool comments) {
  if (!comments || at + 1 >= text.size() || text[at] != '/') {
    return at;
  }
  if (text[at + 1] == '/') {
    const std::size_t end = text.find('\n', at + 2);
    return end == std::string_view::npos ? text.size() : end + 1;
  }
  if (text[at + 1] == '*') {
    const std::size_t end = text.find("*/", at + 2);
    return end == std::string_view::npos ? text.size() : end + 2;
  }
  return at;
}

// The key text of the string token [begin, end): unescaped when it holds escapes.
std::string key_text(std::string_view token) {
  if (token.find('\\') == std::string_view::npos) {
    return std::string(token.substr(1, token.size() - 2));
  }
  try {
    return nlohmann::json::parse(token).get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return std::string(token);  // not a JSON string (text nlohmann did not parse): compared as written
  }
}

// Walks `text` outside comments: on_string(begin, end) for each string token, on_char(at, c) for every
// other character; either returns false to stop the walk.
template <typename OnString, typename OnChar>
void walk_json(std::string_view text, bool comments, OnString on_string, OnChar on_char) {
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t skipped = comment_end(text, i, comments);
    if (skipped != i) {
      i = skipped;
      continue;
    }
    if (text[i] == '"') {
      const std::size_t end = string_end(text, i);
      if (!on_string(i, end)) {
        return;
      }
      i = end;
      continue;
    }
    if (!on_char(i, text[i])) {
      return;
    }
    ++i;
  }
}

}  // namespace

std::optional<JsonStructureFault> find_too_deep_nesting(std::string_view text, bool comments) {
  std::size_t depth = 0;
  std::optional<JsonStructureFault> fault;
  walk_json(
      text, comments, [](std::size_t, std::size_t) { return true; },
      [&](std::size_t at, char c) {
        if (c == '[' || c == '{') {
          if (++depth > k_max_json_depth) {
            fault = JsonStructureFault{
                "nesting deeper than " + std::to_string(k_max_json_depth) + " arrays and objects", at};
            return false;
          }
        } else if ((c == ']' || c == '}') && depth > 0) {
          --depth;
        }
        return true;
      });
  return fault;
}

std::optional<JsonStructureFault> find_duplicate_key(std::string_view text, bool comments) {
  // One entry per open array or object: the keys seen (objects) and whether a key comes next.
  struct Level {
    bool object = false;
    bool expect_key = false;
    std::unordered_set<std::string> keys;
  };
  std::vector<Level> levels;
  std::optional<JsonStructureFault> fault;
  const auto on_string = [&](std::size_t begin, std::size_t end) {
    if (levels.empty() || !levels.back().object || !levels.back().expect_key) {
      return true;
    }
    levels.back().expect_key = false;
    std::string key = key_text(text.substr(begin, end - begin));
    if (levels.back().keys.insert(key).second) {
      return true;
    }
    fault = JsonStructureFault{"duplicate key \"" + shorten_middle(valid_utf8(key), 80) +
                                   "\" in one object (which of its values counts would be a guess)",
                               begin};
    return false;
  };
  walk_json(text, comments, on_string, [&](std::size_t, char c) {
    if (c == '{' || c == '[') {
      levels.push_back(Level{c == '{', c == '{', {}});
    } else if ((c == '}' || c == ']') && !levels.empty()) {
      levels.pop_back();
    } else if (c == ',' && !levels.empty() && levels.back().object) {
      levels.back().expect_key = true;
    }
    return true;
  });
  return fault;
}

}  // namespace neuron_gate
