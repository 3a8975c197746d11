#pragma once
// Whether the baseline is the right one in history (issue 20 item 1): base should be an ancestor of
// head (the commit head branched from, or an earlier one); when it is not, base holds commits head does
// not, and a difference may come from them rather than from head's change. The data are gathered by
// store/repository_state; this decides that it is worth an open hypothesis; report/ words it.

#include "store/repository_state.hpp"

#include <optional>

namespace neuron_gate {

// The ancestry of `states` when base's commit is known, head's is known, and base is not an ancestor of
// head (the two differ and head does not descend from base); nullopt otherwise.
std::optional<Ancestry> baseline_not_ancestor(const RepositoryStates& states);

}  // namespace neuron_gate
