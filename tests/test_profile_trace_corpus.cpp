// Tests for profile/trace_samples on real traces: the 210 bundled RMSNorm traces against the
// key_averages tables PyTorch printed beside them, and corpus traces (CUDA 2021, old Kineto, AMD,
// CPU-only, Ascend) against numbers computed independently by tests/tools/trace_expected.py.
#include "keyed_step.hpp"
#include "profile/op_keys.hpp"
#include "profile/trace_samples.hpp"
#include "test_files.hpp"
#include "util/units.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

using namespace neuron_gate;

using neuron_gate::testing::k_test_data;

namespace {

const std::string k_corpus = k_test_data + "/corpus/";

// One row of a printed key_averages table: Self CPU (ns, with the precision of its unit) and calls.
struct TableRow {
  Nanoseconds self_cpu_ns = 0;
  Nanoseconds tolerance_ns = 0;  // half of the last printed digit: 0 for us, 500 ns for ms, 0.5 ms for s
  std::int64_t calls = 0;
};

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string::npos) {
    return "";
  }
  return text.substr(first, text.find_last_not_of(' ') - first + 1);
}

// The Name, Self CPU and # of Calls columns of a key_averages table; column spans from the dash line.
std::map<std::string, TableRow> read_table(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::vector<std::string> lines;
  std::vector<std::size_t> dash_lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] == '-' && line.find_first_not_of("- ") == std::string::npos) {
      dash_lines.push_back(lines.size());
    }
    lines.push_back(line);
  }
  REQUIRE(dash_lines.size() >= 3);
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // (begin, length)
  const std::string& dashes = lines[dash_lines[0]];
  for (std::size_t i = 0; i < dashes.size();) {
    if (dashes[i] != '-') {
      ++i;
      continue;
    }
    const std::size_t end = std::min(dashes.find(' ', i), dashes.size());
    spans.emplace_back(i, end - i);
    i = end;
  }
  const auto cell = [&](const std::string& line, std::size_t column) {
    return trim(line.substr(std::min(spans[column].first, line.size()), spans[column].second));
  };
  std::size_t self_column = 0;
  std::size_t calls_column = 0;
  for (std::size_t c = 0; c < spans.size(); ++c) {
    const std::string header = cell(lines[dash_lines[0] + 1], c);
    if (header == "Self CPU") {
      self_column = c;
    } else if (header == "# of Calls") {
      calls_column = c;
    }
  }
  REQUIRE(self_column != 0);
  REQUIRE(calls_column != 0);
  std::map<std::string, TableRow> rows;
  for (std::size_t l = dash_lines[1] + 1; l < dash_lines[2]; ++l) {
    const std::string time = cell(lines[l], self_column);
    TableRow row;
    std::size_t unit_length = 2;
    Nanoseconds scale = 1;
    if (time.size() > 2 && time.compare(time.size() - 2, 2, "ms") == 0) {
      scale = 1000;
      row.tolerance_ns = 500;
    } else if (time.size() > 2 && time.compare(time.size() - 2, 2, "us") == 0) {
      scale = 1;
    } else {
      REQUIRE(time.back() == 's');
      unit_length = 1;
      scale = 1000000;
      row.tolerance_ns = 500000;
    }
    const auto value = decimal_microseconds_to_ns(time.substr(0, time.size() - unit_length));
    REQUIRE(value.has_value());
    row.self_cpu_ns = *value * scale;
    row.calls = std::stoll(cell(lines[l], calls_column));
    rows.emplace(cell(lines[l], 0), row);
  }
  return rows;
}

// Self CPU and calls per op summed over all steps and the events outside them.
std::map<std::string, OpValues> whole_trace(const TraceSamples& samples) {
  std::map<std::string, OpValues> totals;
  auto add = [&](const StepSample& step) {
    for (const auto& [key, values] : ops_by_key(samples, step)) {
      OpValues& total = totals[key];
      total.self_cpu_ns += values.self_cpu_ns;
      total.calls += values.calls;
      total.device_ns += values.device_ns;
    }
  };
  for (const StepSample& step : samples.steps) {
    add(step);
  }
  add(samples.outside_steps);
  return totals;
}

Nanoseconds device_total(const TraceSamples& samples) {
  Nanoseconds total = 0;
  auto add = [&](const StepSample& step) {
    for (const auto& [name, ns] : step.device_kernels) {
      total += ns;
    }
  };
  for (const StepSample& step : samples.steps) {
    add(step);
  }
  add(samples.outside_steps);
  return total;
}

OpValues values(Nanoseconds self_cpu_ns, std::int64_t calls, Nanoseconds device_ns) {
  OpValues v;
  v.self_cpu_ns = self_cpu_ns;
  v.calls = calls;
  v.device_ns = device_ns;
  return v;
}

}  // namespace

TEST_SUITE_BEGIN("profile::trace_samples corpus");

TEST_CASE("every bundled rmsnorm trace sums to the Self CPU and # of Calls of its key_averages table") {
  const std::filesystem::path root = std::filesystem::path(NEURON_GATE_SOURCE_DIR) / "examples" / "rmsnorm-4x512";
  std::vector<std::filesystem::path> traces;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    if (name.size() > 14 && name.compare(name.size() - 14, 14, ".pt.trace.json") == 0) {
      traces.push_back(entry.path());
    }
  }
  std::sort(traces.begin(), traces.end());
  REQUIRE(traces.size() == 560);

  int negative_div = 0;
  for (const auto& trace : traces) {
    CAPTURE(trace.string());
    const TraceSamples samples = read_trace_samples(trace.string());
    std::string table = trace.string();
    table.replace(table.size() - 14, 14, ".key_averages.txt");
    const std::map<std::string, TableRow> expected = read_table(table);
    const std::map<std::string, OpValues> actual = whole_trace(samples);

    CHECK(samples.format == TraceFormat::legacy_array);
    CHECK(samples.has_profiler_steps);
    const bool two_steps = trace.string().find("/A_sched/") != std::string::npos;
    CHECK(samples.steps.size() == (two_steps ? 2U : 1U));
    for (const StepSample& step : samples.steps) {
      CHECK(step.name.rfind("ProfilerStep#", 0) == 0);
      CHECK(op(keyed(samples, step), "ProfilerStep*").calls == 1);
    }
    CHECK(samples.problems.negative_duration_events == 0);

    CHECK(actual.size() == expected.size());
    for (const auto& entry : expected) {
      const auto& name = entry.first;  // a variable, not a binding: clang 14 cannot capture bindings (CAPTURE)
      const auto& row = entry.second;
      CAPTURE(name);
      const auto found = actual.find(name);
      REQUIRE(found != actual.end());
      CHECK(found->second.calls == row.calls);
      CHECK(std::abs(found->second.self_cpu_ns - row.self_cpu_ns) <= row.tolerance_ns);
      if (name == "aten::div_" && row.self_cpu_ns < 0) {
        ++negative_div;
        CHECK(samples.problems.negative_self_time.count("aten::div_") == 1);
      }
    }
  }
  CHECK(negative_div > 0);  // the negative aten::div_ rows are reproduced, not clamped
}

TEST_CASE("K1 ResNet50 on a V100 (2021 categories): per-op device time through correlation") {
  const TraceSamples samples = read_trace_samples(k_corpus + "K1/worker0.1623143089861.pt.trace.json.gz");
  REQUIRE(samples.steps.size() == 6);
  CHECK(samples.steps[0].name == "ProfilerStep#5");
  CHECK(samples.steps[5].name == "ProfilerStep#10");
  CHECK(samples.steps[0].start_ns == 1623142623460172000);
  CHECK(samples.steps[0].duration_ns == 176078000);
  CHECK(samples.has_device_events);
  for (const char* category : {"Operator", "Runtime", "Kernel", "Memcpy", "Memset", "Trace"}) {
    CHECK(samples.categories.count(category) == 1);
  }

  const KeyedStep step5 = keyed(samples, samples.steps[0]);
  CHECK(op(step5, "aten::cudnn_convolution") == values(5606000, 53, 21165000));
  CHECK(op(step5, "aten::cudnn_batch_norm") == values(3390000, 53, 5710000));
  CHECK(op(step5, "aten::add_") == values(8848000, 499, 4016000));
  CHECK(op(step5, "aten::copy_") == values(5530000, 98, 1941000));
  CHECK(op(step5, "aten::conv2d") == values(1234000, 53, 0));
  CHECK(op(step5, "cudaLaunchKernel") == values(14170000, 1462, 0));
  CHECK(op(step5, "ProfilerStep*") == values(42843000, 1, 0));
  CHECK(op(keyed(samples, samples.steps[1]), "aten::cudnn_convolution") == values(5496000, 53, 21113000));
  CHECK(step5.device_kernels.size() == 69);
  CHECK(step5.unattributed_device_ns == 0);

  // 603.6 ms of device time in all, every event tied to its launching op
  CHECK(device_total(samples) == 603558000);
  Nanoseconds dgrad = 0;
  for (const StepSample& step : samples.steps) {
    const auto found = step.device_kernels.find(
        "void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int, float const*, int, "
        "float const*, int, float*, kernel_grad_params, unsigned long long, int, unsigned long long, int, float, "
        "int, int, int)");
    if (found != step.device_kernels.end()) {
      dgrad += found->second;
    }
    CHECK(step.unattributed_device_ns == 0);
  }
  CHECK(dgrad == 80756000);

  // outside the steps: the profiler's bookkeeping before each step and the final synchronize
  CHECK(ops_by_key(samples, samples.outside_steps).size() == 4);
  CHECK(op(keyed(samples, samples.outside_steps), "cudaDeviceSynchronize") == values(16194000, 1, 0));
  CHECK(op(keyed(samples, samples.outside_steps), "aten::zeros") == values(139000, 6, 0));
}

TEST_CASE("K1 by shape: Input Dims and Input type in the key") {
  const TraceSamples samples = read_trace_samples(k_corpus + "K1/worker0.1623143089861.pt.trace.json.gz", {true});
  CHECK(op(keyed(samples, samples.steps[0]),
           "aten::cudnn_convolution [[32, 1024, 14, 14], [256, 1024, 1, 1], [], [], [], [], [], [], []] "
           "['float', 'float', 'GenericList', 'GenericList', 'GenericList', 'Int', 'Bool', 'Bool', 'Bool']") ==
        values(390000, 5, 1800000));
  CHECK(op(keyed(samples, samples.steps[0]), "aten::addmm [[1000], [32, 2048], [2048, 1000], [], []] "
                                             "['float', 'float', 'float', 'Int', 'Int']") == values(105000, 1, 34000));
  CHECK(samples.input_shapes.at("aten::addmm") == std::set<std::string>{"[[1000], [32, 2048], [2048, 1000], [], []]"});
}

TEST_CASE("K2, the same script captured again: 602.1 ms of device time") {
  const TraceSamples samples = read_trace_samples(k_corpus + "K2/worker0.1623143566756.pt.trace.json.gz");
  REQUIRE(samples.steps.size() == 6);
  CHECK(samples.steps[0].name == "ProfilerStep#16");
  CHECK(device_total(samples) == 602145000);
}

TEST_CASE("K5 under an older Kineto: lower-case Input dims, device events without their runtime call") {
  const TraceSamples samples = read_trace_samples(k_corpus + "K5-resnet50-old-kineto.pt.trace.json.gz");
  REQUIRE(samples.steps.size() == 6);
  CHECK(samples.metadata.count("deviceProperties.count") == 0);
  CHECK(op(keyed(samples, samples.steps[0]), "aten::cudnn_convolution") == values(5976000, 106, 22602000));
  CHECK(op(keyed(samples, samples.steps[0]), "aten::cudnn_convolution_backward_weight") ==
        values(3949000, 53, 24967000));
  // 835 device events have no runtime event and "external id": 0 - counted, never dropped
  CHECK(samples.steps[0].unattributed_device_ns == 37704000);
  CHECK(samples.steps[1].unattributed_device_ns == 2529000);
  CHECK(device_total(samples) == 653527000);
  CHECK(samples.input_shapes.at("aten::cudnn_convolution")
            .count("[[32, 1024, 14, 14], [256, 1024, 1, 1], [], [], [], [], [], [], []]") == 1);
}

TEST_CASE("H02 AMD MI250 / ROCm: hip runtime calls, the gpu_user_annotation copy is no step") {
  const TraceSamples samples = read_trace_samples(k_corpus + "H02-amd-mi250.json.gz");
  REQUIRE(samples.steps.size() == 1);  // ProfilerStep#2, the stub the capture cut short, is screened out
  const KeyedStep step1 = keyed(samples, samples.steps[0]);
  CHECK(step1.name == "ProfilerStep#1");
  CHECK(step1.start_ns == 4203669603187439);
  CHECK(step1.duration_ns == 9288291);
  REQUIRE(samples.problems.listed.size() == 1);
  const DataProblem& cut = samples.problems.listed[0];
  CHECK(cut.kind == DataProblemKind::cut_off_step);
  CHECK(cut.count == 1);
  CHECK(cut.excluded_cpu_ns == 49073);  // the stub's own self time: it holds no op
  CHECK(cut.excluded_device_ns == 0);
  CHECK(cut.example.rfind("ProfilerStep#2: 0.049 ms", 0) == 0);
  CHECK(cut.byte == 30518);
  CHECK(op(step1, "aten::addmm") == values(133381, 1, 24480));
  CHECK(op(step1, "aten::mm") == values(58210, 1, 12640));
  CHECK(op(step1, "aten::copy_") == values(40947, 2, 38161));
  CHECK(op(step1, "hipLaunchKernel") == values(6626497, 12, 0));
  CHECK(op(step1, "ProfilerStep*") == values(7990831, 1, 0));
  CHECK(op(step1, "MseLossBackward0") == values(32772, 1, 0));  // the autograd thread is in the step
  CHECK(step1.device_kernels.size() == 13);
  CHECK(device_total(samples) == 149042);
  CHECK(step1.unattributed_device_ns == 0);
  CHECK(op(keyed(samples, samples.outside_steps), "hipDeviceSynchronize") == values(67818, 1, 0));
  CHECK(samples.metadata.at("record_shapes") == "1");
  CHECK(samples.metadata.at("deviceProperties.count") == "4");
  CHECK(samples.metadata.at("baseTimeNanoseconds") == "1735632360000000000");
}

TEST_CASE("H01 CPU only: collectives on another thread fall in or out of the process-wide step") {
  const TraceSamples samples = read_trace_samples(k_corpus + "H01-cpu-only.pt.trace.json.gz");
  REQUIRE(samples.steps.size() == 1);
  const KeyedStep step = keyed(samples, samples.steps[0]);
  CHECK(step.name == "ProfilerStep#551");
  CHECK(step.start_ns == 1212075529876817);
  CHECK(step.duration_ns == 210109162);
  CHECK(step.ops.size() == 2);
  CHECK(op(step, "gloo:all_reduce") == values(343680971, 2, 0));
  CHECK(op(step, "ProfilerStep*") == values(210109162, 1, 0));
  CHECK(op(keyed(samples, samples.outside_steps), "gloo:all_reduce") == values(1791774947, 8, 0));
  CHECK(op(keyed(samples, samples.outside_steps), "aten::empty") == values(3964, 4, 0));
  CHECK_FALSE(samples.has_device_events);
  CHECK(samples.metadata.at("distributedInfo.rank") == "34");
  CHECK(samples.metadata.at("distributedInfo.world_size") == "300");
  CHECK(samples.metadata.at("deviceProperties.count") == "0");
}

TEST_CASE("A1 Ascend (torch_npu): string times, a top-level array, NPU tasks linked by flows") {
  const TraceSamples samples = read_trace_samples(k_corpus + "A1-ascend-trace_view.json");
  CHECK(samples.format == TraceFormat::legacy_array);
  REQUIRE(samples.steps.size() == 1);
  const KeyedStep step = keyed(samples, samples.steps[0]);
  CHECK(step.name == "ProfilerStep#1");
  CHECK(step.start_ns == 1704161511420289011);
  CHECK(step.duration_ns == 14091970);
  CHECK(op(step, "ProfilerStep*") == values(6144211, 1, 0));
  CHECK(op(step, "aten::_local_scalar_dense") == values(2454735, 45, 0));
  CHECK(op(step, "aclnnMm") == values(34620, 6, 209110));
  CHECK(op(step, "aclnnReduceSum") == values(11811, 4, 252678));
  CHECK(step.ops.size() == 108);
  CHECK(step.device_kernels.size() == 93);
  CHECK(device_total(samples) == 1790457);
  CHECK(step.unattributed_device_ns == 2190);  // two tasks no flow points at
  CHECK(ops_by_key(samples, samples.outside_steps).empty());
}

TEST_SUITE_END();
