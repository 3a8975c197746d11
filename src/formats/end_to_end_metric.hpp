#pragma once
// What every end-to-end reader gives (e2e.json, benchmark tools, Neuron summaries): a metric measured
// outside the profiler, with its samples, runs and direction.

#include <cstddef>
#include <string>
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
  std::string name;  // "latency"
  std::string unit;  // "ms"
  Better better = Better::lower;
  std::vector<double> samples;  // one value per measurement, finite (every run's samples, in order)
  // Runs (processes) the samples come from: 1 for a plain `samples` list, the number of lists under
  // `runs`, and summed when e2e files of several run folders are merged (read_side.cpp). Samples of one
  // process are not independent: the gate applies a between-run allowance while a side has one run.
  std::size_t runs = 1;
  // Samples per run, in order (sums to samples.size()); one entry for a plain `samples` list.
  std::vector<std::size_t> run_sizes;
  std::string source_path;  // the file they came from (the first one, once merged across files)
  EndToEndOrigin origin = EndToEndOrigin::application;
  // False when the file says "gates": false (e2e.json): the metric explains and never decides, like a
  // device summary measure, e.g. the capture helper's thread_cpu_time beside the latency that gates.
  bool gates = true;
  bool operator==(const EndToEndMetric&) const = default;
};

}  // namespace neuron_gate
