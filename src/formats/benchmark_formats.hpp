#pragma once
// End-to-end numbers written by benchmark tools: Google Benchmark `--benchmark_format=json` (or
// `--benchmark_out=FILE`), `hyperfine --export-json`, and pytest-benchmark JSON saved with
// `--benchmark-save-data`. Each becomes EndToEndMetrics, one sample per repetition / run / round.

#include "formats/end_to_end_metric.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace neuron_gate {

// The benchmark tool that wrote a JSON file, told from its content.
enum class BenchmarkFormat { unknown, google_benchmark, hyperfine, pytest_benchmark };

// "google-benchmark", "hyperfine", "pytest-benchmark" or "unknown", for messages and reports.
std::string_view benchmark_format_name(BenchmarkFormat format);

// Tells the format from a file's first bytes (a few KiB suffice): a JSON object (after an optional BOM and white
// space) whose first key is "context" with Google Benchmark's "num_cpus" or "benchmarks" -> google_benchmark;
// first key "results" with "command" -> hyperfine; a "machine_info" key, or "benchmarks" with "fullname" ->
// pytest_benchmark; anything else -> unknown.
BenchmarkFormat sniff_benchmark_format(std::string_view head);

// Google Benchmark JSON. Uses the per-repetition entries (`run_type` "iteration"); aggregates (mean, median,
// stddev, cv, BigO, RMS) and entries with `error_occurred` or `skipped` are ignored. Per benchmark (`run_name`,
// in file order): "<run_name> real_time" and "<run_name> cpu_time" in the file's `time_unit` (ns, us, ms or s,
// kept as is), lower is better; "<run_name> items_per_second" ("items/s") and "<run_name> bytes_per_second"
// ("bytes/s"), higher is better, when present. Other user counters are ignored (their direction is unknown).
// Throws InputError naming the path for malformed JSON (with the byte offset), a missing `benchmarks` array,
// an unknown time unit, a benchmark whose repetitions change unit, or a file without per-repetition entries.
std::vector<EndToEndMetric> parse_google_benchmark_json(std::string_view text, const std::string& path);

// hyperfine JSON: one metric per `results[]` entry, named by its `command`, samples `times[]` (seconds, always,
// whatever `--time-unit` said), unit "s", lower is better. Throws InputError for malformed JSON, a missing
// `results` array, an entry without a string `command` or a non-empty `times` array, or a command seen twice.
std::vector<EndToEndMetric> parse_hyperfine_json(std::string_view text, const std::string& path);

// pytest-benchmark JSON: one metric per `benchmarks[]` entry, named by its `fullname` (else `name`), samples
// `stats.data[]` (seconds per iteration), unit "s", lower is better. Throws InputError for malformed JSON, an
// entry without `stats.data` (the file was saved without `--benchmark-save-data`), or a name seen twice.
std::vector<EndToEndMetric> parse_pytest_benchmark_json(std::string_view text, const std::string& path);

// Any of the three, told by sniff_benchmark_format(); throws InputError when the format is unknown.
std::vector<EndToEndMetric> parse_benchmark_json(std::string_view text, const std::string& path);

// Reads the file at `path` and calls parse_benchmark_json(); throws InputError when it cannot be read.
std::vector<EndToEndMetric> read_benchmark_json(const std::string& path);

}  // namespace neuron_gate
