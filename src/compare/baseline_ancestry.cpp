#include "compare/baseline_ancestry.hpp"

namespace neuron_gate {

std::optional<Ancestry> baseline_not_ancestor(const RepositoryStates& states) {
  if (!states.ancestry || states.ancestry->base_is_ancestor) {
    return std::nullopt;
  }
  return states.ancestry;
}

}  // namespace neuron_gate
