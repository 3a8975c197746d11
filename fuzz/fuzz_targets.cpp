#include "fuzz/fuzz_targets.hpp"

#include "compare/rule_set.hpp"
#include "formats/benchmark_formats.hpp"
#include "formats/discover.hpp"
#include "formats/e2e_json.hpp"
#include "formats/key_averages_table.hpp"
#include "formats/manifest.hpp"
#include "formats/neuron_summary.hpp"
#include "input/byte_source.hpp"
#include "profile/table_samples.hpp"
#include "profile/trace_samples.hpp"
#include "util/error.hpp"

#include <array>
#include <string>

namespace neuron_gate::fuzz {

namespace {

std::string_view as_text(std::span<const std::uint8_t> data) {
  return {reinterpret_cast<const char*>(data.data()), data.size()};
}

// Runs `read`, accepting InputError (the documented rejection); anything else propagates.
template <typename Read>
void expect_read_or_input_error(Read&& read) {
  try {
    read();
  } catch (const InputError&) {
  }
}

}  // namespace

void trace(std::span<const std::uint8_t> data) {
  const std::string bytes(as_text(data));
  const DiscoveredFile sniffed = classify_file_head("fuzz.pt.trace.json", bytes);  // never throws
  (void)sniffed;
  expect_read_or_input_error([&] {
    ByteSource source("fuzz.pt.trace.json", bytes);
    TraceReadOptions options;
    options.by_shape = !data.empty() && (data[0] & 1U) != 0;
    const TraceSamples samples = read_trace_samples(source, options);
    (void)samples;
  });
}

void key_averages(std::span<const std::uint8_t> data) {
  const std::string_view text = as_text(data);
  (void)looks_like_key_averages_table(text);
  expect_read_or_input_error([&] {
    for (const KeyAveragesTable& table : parse_key_averages_tables(text, "fuzz.txt")) {
      (void)samples_from_table(table, "fuzz.txt", false);
      (void)samples_from_table(table, "fuzz.txt", true);
      (void)table_input_shapes(table);
    }
  });
  // Each cell's time text on its own, as the table parser sees it.
  const std::size_t line_end = text.find('\n');
  (void)parse_table_time_ns(text.substr(0, line_end == std::string_view::npos ? text.size() : line_end));
}

void rules(std::span<const std::uint8_t> data) {
  expect_read_or_input_error([&] {
    const RuleSet set = parse_rules(as_text(data), "fuzz-rules.json");
    static constexpr std::array<std::string_view, 4> names{"aten::mm", "ProfilerStep#3", "", "aten::mm [rank 1]"};
    for (std::string_view name : names) {
      (void)set.threshold_for(MetricClass::self_cpu, name);
      (void)set.is_ignored(name);
      (void)set.waiver_for(name, "2026-01-01");
    }
  });
}

void e2e(std::span<const std::uint8_t> data) {
  (void)looks_like_e2e_json(as_text(data));
  expect_read_or_input_error([&] { (void)parse_e2e_json(as_text(data), "e2e.json"); });
}

void benchmark(std::span<const std::uint8_t> data) {
  const std::string_view text = as_text(data);
  (void)sniff_benchmark_format(text);
  expect_read_or_input_error([&] { (void)parse_google_benchmark_json(text, "bench.json"); });
  expect_read_or_input_error([&] { (void)parse_hyperfine_json(text, "bench.json"); });
  expect_read_or_input_error([&] { (void)parse_pytest_benchmark_json(text, "bench.json"); });
}

void neuron_summary(std::span<const std::uint8_t> data) {
  const std::string_view text = as_text(data);
  (void)looks_like_neuron_summary_json(text);
  (void)looks_like_neuron_summary_text(text);
  (void)null_non_finite_tokens(text);
  expect_read_or_input_error([&] { (void)neuron_summary_metrics(parse_neuron_summary_json(text, "summary.json")); });
  expect_read_or_input_error([&] { (void)neuron_summary_metrics(parse_neuron_summary_text(text, "summary.txt")); });
}

void manifest(std::span<const std::uint8_t> data) {
  (void)looks_like_manifest(as_text(data));
  expect_read_or_input_error([&] {
    const RunManifest parsed = parse_manifest(as_text(data), "neuron-gate.json");
    (void)diff_manifests(parsed, parsed);
    (void)diff_manifests(RunManifest{}, parsed);
  });
}

std::span<const Target> targets() {
  static constexpr std::array<Target, 7> all{{
      {"trace", trace},
      {"key_averages", key_averages},
      {"rules", rules},
      {"e2e", e2e},
      {"benchmark", benchmark},
      {"neuron_summary", neuron_summary},
      {"manifest", manifest},
  }};
  return all;
}

}  // namespace neuron_gate::fuzz
