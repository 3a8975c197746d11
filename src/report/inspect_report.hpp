#pragma once
// `neuron-gate inspect` as Markdown: what was understood of one profile — a summary first (files read by
// kind and ignored, traces, steps, ops, end-to-end metrics, conditions, data problems), then the
// conditions fingerprint, ranks, Neuron captures and assumptions, data problems, end-to-end metrics, the
// per-op table of medians per step, and last the files found and ignored with why. The command reads;
// this renders.

#include "compare/conditions.hpp"
#include "profile/read_side.hpp"

#include <string>

namespace neuron_gate {

// The inspect report of `side` (read from the profile `profile_spec`, as given on the command line)
// with its conditions `fingerprint` (fingerprint_side). Byte-identical for the same inputs.
std::string render_inspect(const std::string& profile_spec, const SideSamples& side, const Fingerprint& fingerprint);

}  // namespace neuron_gate
