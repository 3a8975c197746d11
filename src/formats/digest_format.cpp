#include "formats/digest_format.hpp"

namespace neuron_gate {

bool looks_like_digest(std::string_view head) {
  std::size_t i = 0;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r')) {
    ++i;
  }
  head.remove_prefix(i);
  constexpr std::string_view k_start = "{\"format\":\"neuron-gate digest\"";
  return head.substr(0, k_start.size()) == k_start;
}

}  // namespace neuron_gate
