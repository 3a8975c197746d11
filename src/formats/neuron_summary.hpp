#pragma once
// Neuron device summaries: `neuron-explorer view --output-format summary-json` / `summary-text`, and the
// older `neuron-profile` JSON whose `summary` array holds the same keys (NEURON-FORMATS.md sections 5.1, 5.2, 5.4).
// All times are in seconds.

#include "formats/end_to_end_metric.hpp"
#include "input/json_input.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The device totals of one execution (one NTFF, one `summary` entry). A key that is absent, null, or a
// bare NaN/Infinity token has no value (std::nullopt, or no map entry); it is never 0 or NaN.
struct NeuronSummary {
  std::string path;                           // the file it came from
  std::string version;                        // "explorer_version 2.21.0, profile_schema_version 1.2.0" or "unknown"
  std::vector<std::string> assumptions;       // the shape seen and how it was read, one phrase each
  std::optional<double> total_time_s;         // `total_time`: start to end of the execution, idle gaps included
  std::optional<double> total_active_time_s;  // `total_active_time`
  // "tensor" -> `tensor_engine_active_time`; likewise vector, scalar, gpsimd, sync and any other
  // `<engine>_engine_active_time` key.
  std::map<std::string, double> engine_active_time_s;
  // Keys read above (`total_time`, `total_active_time`, `*_engine_active_time`) that were present without a
  // value (null, NaN, Infinity, "nan"), in file order: skipped, for the report's warnings.
  std::vector<std::string> no_value_keys;
  bool operator==(const NeuronSummary&) const = default;
};

// True when a text's first bytes look like a Neuron summary in JSON: after an optional BOM and white space a
// '{' or '[', and the key "total_time" with any of "total_active_time", "summary" or a "*_engine_*" key.
bool looks_like_neuron_summary_json(std::string_view head);

// True when a text's first bytes look like `summary-text`: every non-empty line is `key value` with a
// lowercase snake_case key, and one of them is `total_time`.
bool looks_like_neuron_summary_text(std::string_view head);

// Reads summary-json or legacy neuron-profile JSON, one NeuronSummary per execution, in file order. Accepted
// shapes: an object holding the metric keys, an object whose `summary` is an object or an array of objects, or
// an array of such objects (one per NTFF); each summary's `assumptions` say which was seen. Bare NaN, -NaN,
// Infinity, -Infinity (also nan, inf) outside strings are read as null. Throws InputError naming the path (and
// the byte offset in the file for malformed JSON) when the JSON is malformed, no shape fits, or a time is
// negative or not a number.
std::vector<NeuronSummary> parse_neuron_summary_json(std::string_view text, const std::string& path);

// The same, reading the file at `path`; also throws InputError when the file cannot be read.
std::vector<NeuronSummary> read_neuron_summary_json(const std::string& path);

// Reads summary-text (`key value` per line, seconds; `nan` means no value). A key seen a second time starts
// the next execution's summary. Lines that are not `key value` are skipped. Throws InputError (path, byte
// offset of the value) for a time that is not a number or is negative, or when no `total_time` line exists.
std::vector<NeuronSummary> parse_neuron_summary_text(std::string_view text, const std::string& path);

// The same, reading the file at `path`; also throws InputError when the file cannot be read.
std::vector<NeuronSummary> read_neuron_summary_text(const std::string& path);

// One metric per measure, one sample per summary that has a value, in summary order, unit "s", lower is
// better, origin device_summary: "device total_time", "device total_active_time", then
// "device <engine>_engine_active_time" in engine-name order. A measure no summary has gives no metric.
// source_path is the first summary's path.
std::vector<EndToEndMetric> neuron_summary_metrics(const std::vector<NeuronSummary>& summaries);

// The name of the device's end-to-end time among neuron_summary_metrics(): "device total_time".
inline constexpr std::string_view k_device_total_time_metric = "device total_time";

}  // namespace neuron_gate
