// The warm-up screen (compare/warm_up.hpp) on real 3-cycle captures: base's warm-up cycle is left out of
// both sides, decided from base alone.
#include "compare/warm_up.hpp"
#include "formats/discover.hpp"
#include "profile/read_side.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace ng = neuron_gate;
namespace fs = std::filesystem;

namespace {

const std::string k_three_cycles = NEURON_GATE_TEST_DATA "/profiles/rmsnorm-3cycle/";

ng::SideSamples side(const std::string& label, const std::string& path) {
  return ng::read_side(label, ng::discover_profile(path), {});
}

// `from` with the first trace (path order) of each run folder left out: a capture without the warm-up.
std::string without_first_traces(const std::string& from, const std::string& name) {
  const fs::path dest = fs::temp_directory_path() / ("neuron-gate-warm-up-" + name);
  fs::remove_all(dest);
  for (const auto& run : fs::directory_iterator(from)) {
    std::vector<fs::path> traces;
    for (const auto& file : fs::directory_iterator(run.path())) {
      if (file.path().string().ends_with(".pt.trace.json")) {
        traces.push_back(file.path());
      }
    }
    std::sort(traces.begin(), traces.end());
    fs::create_directories(dest / run.path().filename());
    for (std::size_t i = 1; i < traces.size(); ++i) {
      fs::copy_file(traces[i], dest / run.path().filename() / traces[i].filename());
    }
  }
  return dest.string();
}

}  // namespace

TEST_CASE("warm-up screen: base's first profiler cycle of each run is left out of both sides") {
  // traces-A: 10 runs of 3 cycles, step times 185-321 µs in cycle 1 against 40-169 µs later (4.0x).
  ng::SideSamples base = side("base", k_three_cycles + "traces-A");
  ng::SideSamples head = side("head", k_three_cycles + "traces-Areg");
  REQUIRE(base.traces.size() == 30);
  const auto screen = ng::leave_out_warm_up_traces(base, head);
  REQUIRE(screen.has_value());
  CHECK(screen->kind == ng::WarmUpKind::first_trace_of_run);
  CHECK(screen->measured == 10);
  CHECK(screen->first_us == doctest::Approx(203.5));  // median of 204, 278, 203, 185, 194, 220, 194, 321, 186, 235
  CHECK(screen->later_us == doctest::Approx(57.0));
  CHECK(screen->base_left_out == 10);
  CHECK(screen->head_left_out == 10);
  CHECK(base.traces.size() == 20);
  CHECK(head.traces.size() == 20);
  for (const ng::TraceSamples& trace : base.traces) {
    CHECK(trace.steps.front().duration_ns < 180'000);  // no cycle-1 step (each is >= 185 µs) is left
  }
  CHECK(head.traces.front().path.ends_with("run-01/vm_12624.1796061709139.pt.trace.json"));  // its 2nd of 3
  CHECK(!ng::warm_up_pattern(base).has_value());  // what remains shows no warm-up
}

TEST_CASE("warm-up screen: a warm-up only head shows is kept (the PR cannot screen its own evidence)") {
  ng::SideSamples base = side("base", without_first_traces(k_three_cycles + "traces-A", "base"));
  ng::SideSamples head = side("head", k_three_cycles + "traces-A");
  REQUIRE(ng::warm_up_pattern(head).has_value());
  CHECK(!ng::leave_out_warm_up_traces(base, head).has_value());
  CHECK(base.traces.size() == 20);
  CHECK(head.traces.size() == 30);
}
