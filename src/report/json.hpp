#pragma once
// Report -> JSON, schema "neuron-gate.report/2" (documented in docs/reference.md "Reports").

#include "report/report.hpp"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace neuron_gate {

// The JSON report: verdict, conditions, every metric (sample summaries, raw and adjusted p, CI,
// verdict and reason), interpretations, open hypotheses, rules and provenance. Pretty-printed,
// keys in a fixed order; byte-identical for the same inputs.
std::string render_json(const Report& report);

// The same text handed to `sink` in pieces (one metric at a time), so a report of 50,000 ops is never
// held whole: compare --json streams it into its file (util/atomic_file.hpp AtomicFileWriter).
void write_json_report(const Report& report, const std::function<void(std::string_view)>& sink);

// `document` pretty-printed (indent 1) with a final newline, every string and key first made valid
// UTF-8 (escape.hpp valid_utf8), so no name from the data can make nlohmann throw type_error.316.
std::string dump_valid_json(const nlohmann::ordered_json& document);

}  // namespace neuron_gate
