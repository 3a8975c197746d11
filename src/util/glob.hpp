#pragma once
// Shell-style wildcard matching for op-name patterns in rules ("ProfilerStep*", "aten::*conv*").

#include <string_view>

namespace neuron_gate {

// True when `text` matches `pattern`, where '*' matches any run of characters (also empty) and '?'
// exactly one; every other character matches itself (case-sensitive). Linear time in practice.
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace neuron_gate
