#pragma once
// End-to-end numbers (latency, throughput) measured outside the profiler: neuron-gate's e2e.json
// (schema "neuron-gate.e2e/1", DESIGN.md section 1).

#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// Which direction is better for a metric: latency is `lower`, throughput is `higher`.
enum class Better { lower, higher };

// Who measured an end-to-end metric (DESIGN.md section 4: the application's numbers decide).
enum class EndToEndOrigin {
  application,     // the workload or a benchmark tool: e2e.json, Google Benchmark, hyperfine, pytest-benchmark
  device_summary,  // a Neuron device summary (neuron-explorer): device time only, host overhead excluded
};

// One end-to-end metric of one side: its samples in the file's own unit (e.g. "ms", "samples/s").
struct EndToEndMetric {
  std::string name;             // "latency"
  std::string unit;             // "ms"
  Better better = Better::lower;
  std::vector<double> samples;  // one value per measurement, finite (every run's samples, in order)
  // Runs (processes) the samples come from: 1 for a plain `samples` list, the number of lists under
  // `runs`, and summed when e2e files of several run folders are merged (read_side.cpp). Samples of one
  // process are not independent: the gate applies a between-run allowance while a side has one run.
  std::size_t runs = 1;
  // Samples per run, in order (sums to samples.size()); one entry for a plain `samples` list.
  std::vector<std::size_t> run_sizes;
  std::string source_path;      // the file they came from (the first one, once merged across files)
  EndToEndOrigin origin = EndToEndOrigin::application;
  bool operator==(const EndToEndMetric&) const = default;
};

// True when a JSON text (first bytes suffice) declares the schema "neuron-gate.e2e/1".
bool looks_like_e2e_json(std::string_view head);

// Reads an e2e.json file. Keys other than the schema's are ignored. A metric gives either `samples`
// (one process) or `runs`: a list of non-empty sample lists, one per process (run). Throws InputError
// naming the path (and the byte offset for malformed JSON) for a wrong schema, neither or both of
// `samples` and `runs`, an empty list, a non-numeric sample, an unknown `better`, or two metrics of the
// same name.
std::vector<EndToEndMetric> read_e2e_json(const std::string& path);

// The same from text already in memory; `path` is used in error messages.
std::vector<EndToEndMetric> parse_e2e_json(std::string_view text, const std::string& path);

} // namespace neuron_gate
