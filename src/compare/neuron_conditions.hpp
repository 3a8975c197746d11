#pragma once
// The conditions a Neuron capture adds (issue 37 item 3; docs/NEURON-FORMATS.md sections 1.2 and 1.3): its
// process folders and ranks, the NeuronCores traced, the artifacts' completeness, whether the NeuronCores
// the manifest selected are the ones traced, and the compiled executables (NEFF hashes).

#include "compare/conditions.hpp"
#include "profile/read_side.hpp"

#include <string>

namespace neuron_gate {

// Adds to `fp` from the side's Neuron capture folders and manifest: "ranks" ("1" for process folders whose
// traces state no rank), "neuron_cores", "artifacts" (each capture's problems), fp.neff_names, and
//   "neuron_core_selection": the manifest's neuron_config.capture_enabled_for_nc against the NeuronCores
//     that hold NTFF files: "NeuronCores 0 as selected", "NeuronCores 0 of 0-3 selected" (selected cores
//     that wrote nothing are idle, not a fault), or "selected 1, traced 0" when a traced core was not
//     selected or no selected core was traced (neuron_core_selection_consistent() is then false);
//     absent without a selection or without NTFF files;
//   "neff_hashes": the NEFF hashes found, sorted ("1234, 5678"; "7 NEFFs, sha256 of the hash list
//     0123456789ab" beyond 6); absent without hashed NEFFs. A change is shown, never blocking: a code
//     change may recompile the graph.
void add_neuron_conditions(const SideSamples& side, Fingerprint& fp);

// False for a neuron_core_selection value that says a traced core was not selected ("selected 1, traced 0").
bool neuron_core_selection_consistent(const std::string& value);

}  // namespace neuron_gate
