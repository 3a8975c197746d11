#pragma once
// The fuzz targets (README "Fuzzing"): one function per input reader, each taking arbitrary bytes as
// the content of one file. Built as a plain library so that the libFuzzer binaries (fuzz/fuzz_main.cpp,
// -DNEURON_GATE_FUZZ=ON, clang only) and the always-built replay test (fuzz/replay.cpp, ctest
// `fuzz-replay`) call the same code.
//
// Contract checked by every target: an input is either read, or rejected with InputError (the
// user-facing "PATH[:byte N]: problem" error). Any other exception (nlohmann::json errors,
// std::bad_alloc, std::out_of_range, ...) escapes and is a bug, as are crashes, leaks and undefined
// behaviour (caught by ASan/UBSan in the sanitizer build).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace neuron_gate::fuzz {

// One fuzz target: the function and the name used for its binary (`fuzz_<name>`), its seed corpus
// folder and its crash fixtures folder (tests/data/fuzz-crashes/<name>/).
struct Target {
  std::string_view name;
  void (*run)(std::span<const std::uint8_t> data);
};

// Kineto and legacy traces, plain or gzip (read_trace_samples: SAX reader, nesting, steps, device
// attribution), by name and, when the first byte is odd, by shape; plus discovery's content sniff.
void trace(std::span<const std::uint8_t> data);
// Printed key_averages() tables: every table in the text, then its samples (by name and by shape).
void key_averages(std::span<const std::uint8_t> data);
// Rules JSON (comments allowed); a rule set that parses is queried (thresholds, ignores, waivers).
void rules(std::span<const std::uint8_t> data);
// neuron-gate.e2e/1 files.
void e2e(std::span<const std::uint8_t> data);
// Google Benchmark, hyperfine and pytest-benchmark JSON (each parser tried, whatever the sniff says).
void benchmark(std::span<const std::uint8_t> data);
// Neuron summaries: summary-json / legacy neuron-profile JSON and summary-text, then their metrics.
void neuron_summary(std::span<const std::uint8_t> data);
// Run manifests (neuron-gate.manifest/1), diffed against themselves and the empty manifest.
void manifest(std::span<const std::uint8_t> data);

// Every target above, in this order.
std::span<const Target> targets();

}  // namespace neuron_gate::fuzz
