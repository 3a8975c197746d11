#pragma once
// The digest file kind as discovery sees it (docs/user-guide.md "Digests"): its format word and how its first bytes
// are recognised. Reading and writing digests is the store stage's (store/digest.hpp).

#include <string_view>

namespace neuron_gate {

// The format word a digest starts with: {"format": "neuron-gate digest", ...}.
inline constexpr const char* k_digest_format = "neuron-gate digest";

// True when `head` (a file's first bytes, decompressed) starts a digest: a JSON object whose first key is
// "format" with the value "neuron-gate digest".
bool looks_like_digest(std::string_view head);

}  // namespace neuron_gate
