#pragma once
// The optional run manifest `neuron-gate.json`: what a trace cannot tell about the run that made it.
//
// Schema "neuron-gate.manifest/1"; every key but "schema" is optional:
//   {"schema": "neuron-gate.manifest/1",
//    "workload": "model:step",                      // a name for the report; not a condition (see conditions.hpp)
//    "operating_point": "bs4-seq512",               // the operating point's label
//    "model_version": "llama-3-8b@4f2c1e0",
//    "compilation_path": "torch.compile",          // "eager" | "jit" | "torch.compile" | "nki" | free text
//    "device": "neuron",                            // "neuron" | "cuda" | "cpu" | free text
//    "versions": {"torch": "2.8.0", "torch_neuronx": "2.8.0.2.10", "neuron_sdk": "2.26.0",
//                 "neuronx_cc": "2.21.18209"},     // any names; every value a string
//    "instance_type": "trn2.48xlarge",
//    "intra_op_threads": 4,                         // torch.get_num_threads() while the steps ran (> 0)
//    "grad_mode": "no_grad",                        // autograd mode the steps ran in: "enabled" | "no_grad" |
//                                                   // "inference_mode"
//    "profiler": {"activities": ["CPU", "PrivateUse1"], "record_shapes": true, "with_stack": false,
//                 "profile_memory": false, "with_flops": false},  // also with_modules; flags are booleans
//    "neuron_config": {"modes": ["DEVICE", "RUNTIME"], "capture_enabled_for_nc": "0,1,2-5",
//                      "max_events_per_nc": 1000000},  // other keys allowed, any JSON value
//    "schedule": {"wait": 1, "warmup": 3, "active": 5, "repeat": 1},  // also skip_first, skip_first_wait
//    "timing": {"warmup": 10, "repetitions": 50, "calls_per_sample": 1, "interleaved": true,  // of e2e.json;
//               "bursts": 4,                        // samples taken in this many bursts over the run
//               "gate": "latency"},                 // the end-to-end metric that decides; e2e.json marks the
//                                                   // others "gates": false (formats/e2e_json.hpp)
//    "inputs": [{"name": "input_ids", "shape": [4, 512], "dtype": "int64"}, {"name": "steps", "value": 3}],
//    "price_per_hour": 21.96,                       // USD per instance-hour (> 0): cost per unit of work
//    (compare/cost.hpp) "commit": "0123456789abcdef...",               // the git commit profiled (7-64 hex digits):
//    provenance
//                                                   // and the ancestry check (repository_state.hpp), no condition
//    "pairing": {"session": "2026-12-04T20:00Z-7f3a",  // 1-128 printable ASCII: base and head captured
//                "order": ["base/run-01", "head/run-01"]},  // alternately in one session (paired runs), and
//                                                   // in which order (base|head / run folder); no condition
//    "rank": 0,                                     // the rank of every trace on this side (a rank mark,
//                                                   // profile/ranks.hpp); a non-negative integer
//    "world_size": 1,                               // ranks in the run (> 0); above 1 asks every trace in an
//                                                   // <instance-id>_pid_<pid> folder for a rank mark
//    "notes": "free text, ignored"}
// This is what python/neuron_gate_capture writes. A top-level key outside this list is an error (a typo
// must not pass silently), and so are unknown keys inside "profiler", "schedule", "timing" and an
// "inputs" entry; "versions" and "neuron_config" are open maps.
// Canonical values, so that equal settings compare equal:
//   - neuron_config.capture_enabled_for_nc: a set of NeuronCores, "0-2" == "0,1,2" == "2,0-1"; written
//     sorted with runs of three or more as ranges ("0-2", "0,1", "0-3,7")
//   - neuron_config.modes: a set; "ProfileMode." prefix dropped, upper case, sorted, comma-joined
//   - profiler.activities: a set; "ProfilerActivity." prefix dropped, sorted, comma-joined ("CPU,PrivateUse1")
//   - booleans (profiler flags, timing.interleaved): "true" / "false"
//   - inputs[].value (a scalar input): compact JSON ("3", "\"greedy\"", "true", "null")
//   - inputs: keyed by name, so their order does not matter; shape as compact JSON ("[4,512]", symbolic
//     dimensions as strings), dtype without a "torch." prefix
//   - neuron_config.profile_output_dir and neuron_config.neff_cache_dir are ignored: where files go does
//     not change what is measured
//   - other neuron_config values: strings as written, anything else as compact JSON
//   - price_per_hour: the number as JSON writes it ("21.96"); shown, never a blocking condition
// Integers (max_events_per_nc, schedule.*, timing.warmup/repetitions/calls_per_sample/bursts) must be
// non-negative JSON integers; world_size and intra_op_threads positive ones.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// A parsed manifest as a flat map field path -> canonical value text, e.g. "compilation_path" ->
// "torch.compile", "versions.torch" -> "2.8.0", "neuron_config.capture_enabled_for_nc" -> "0-5",
// "schedule.active" -> "5", "inputs[input_ids].shape" -> "[4,512]". Fields absent from the file are absent.
struct RunManifest {
  std::string source_path;
  std::map<std::string, std::string> fields;
  std::string commit;  // "commit" as written, "" when absent; kept out of `fields`, which are conditions
  // "pairing": {"session": "..."} as written, "" when absent: base and head captured alternately in one
  // session share it, and their end-to-end runs are then tested in pairs. Not a condition.
  std::string pairing_session;
  // "pairing": {"order": [...]}: the capture order of both sides' runs, "base/run-01", "head/run-01",
  // "head/run-02", ... (the capture helper writes it into both manifests); empty when absent.
  std::vector<std::string> pairing_order;
  bool operator==(const RunManifest&) const = default;
};

// One field whose value differs between two manifests; "absent" where a side does not set it.
struct ManifestDifference {
  std::string field;       // "compilation_path"
  std::string base_value;  // "eager" or "absent"
  std::string head_value;  // "torch.compile" or "absent"
  bool operator==(const ManifestDifference&) const = default;
};

// True when a JSON text (first bytes suffice) declares the schema "neuron-gate.manifest/1".
bool looks_like_manifest(std::string_view head);

// Parses manifest text; `path` is used in error messages. Throws InputError for malformed JSON (with
// the byte offset), a missing or wrong schema, an unknown key (naming it, with a "did you mean"), a
// value of the wrong type (naming the field), a bad capture_enabled_for_nc, an array or object as an
// input's value, or two inputs of one name.
RunManifest parse_manifest(std::string_view text, const std::string& path);

// Reads and parses the manifest file at `path`; throws InputError as parse_manifest, or if unreadable.
RunManifest read_manifest(const std::string& path);

// The fields that differ between two manifests, in field order; empty when they hold the same values.
std::vector<ManifestDifference> diff_manifests(const RunManifest& base, const RunManifest& head);

// A NeuronCore selection such as "0,1,2-5" in canonical form ("0-5"; "" stays ""). Throws
// InputError(path, ...) naming `field` and the value when it is not a comma list of numbers and ranges.
std::string canonical_core_list(std::string_view text, const std::string& path, const std::string& field);

// True for an entry of "pairing.order": "base/RUN" or "head/RUN", RUN 1-64 of [A-Za-z0-9._-].
bool is_pairing_order_entry(std::string_view entry);

}  // namespace neuron_gate
