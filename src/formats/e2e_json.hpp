#pragma once
// The e2e.json file kind: end-to-end numbers (latency, throughput) measured outside the profiler, in
// neuron-gate's own format (schema "neuron-gate.e2e/1", DESIGN.md section 1). Its sniff and its reader are
// the kind's row in file_kinds.cpp (docs/ARCHITECTURE.md, "Adding a file format").

#include "formats/end_to_end_metric.hpp"
#include "formats/file_kinds.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// True when a JSON text (first bytes suffice) declares the schema "neuron-gate.e2e/1".
bool looks_like_e2e_json(std::string_view head);

// The kind's sniff: a JSON object that looks_like_e2e_json.
bool sniff_e2e_json(const FileHead& head);

// Reads an e2e.json file. Keys other than the schema's are ignored. A metric gives either `samples`
// (one process) or `runs`: a list of non-empty sample lists, one per process (run); an optional
// `"gates": false` marks a metric that explains and never decides (EndToEndMetric::gates; default true).
// Throws InputError naming the path (and the byte offset for malformed JSON) for a wrong schema, neither
// or both of `samples` and `runs`, an empty list, a non-numeric sample, an unknown `better`, a `gates`
// that is not true or false, or two metrics of the same name.
std::vector<EndToEndMetric> read_e2e_json(const std::string& path);

// The same from text already in memory; `path` is used in error messages.
std::vector<EndToEndMetric> parse_e2e_json(std::string_view text, const std::string& path);

}  // namespace neuron_gate
