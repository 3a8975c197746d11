#include "util/text.hpp"

#include "util/utf8.hpp"

#include <algorithm>
#include <vector>

namespace neuron_gate {

std::string plural(std::size_t n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

std::string join_set(const std::set<std::string>& items) {
  std::string text;
  for (const std::string& item : items) {
    text += (text.empty() ? "" : ", ") + item;
  }
  return text;
}

std::string shorten_middle(std::string_view text, std::size_t max_chars) {
  max_chars = std::max<std::size_t>(max_chars, 3);
  std::vector<std::size_t> starts;  // byte offset of each code point
  for (std::size_t i = 0; i < text.size(); i += next_code_point(text, i).length) {
    starts.push_back(i);
  }
  if (starts.size() <= max_chars) {
    return std::string(text);
  }
  const std::size_t front = max_chars / 2;  // (max_chars - 1 + 1) / 2
  const std::size_t back = (max_chars - 1) / 2;
  return std::string(text.substr(0, starts[front])) + "…" + std::string(text.substr(starts[starts.size() - back]));
}

}  // namespace neuron_gate
