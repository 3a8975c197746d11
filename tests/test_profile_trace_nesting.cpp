// Tests for profile/self_time, profile/device_attribution and profile/trace_samples on small
// constructed traces: PyTorch's nesting rule, steps as process-wide windows, device time to the
// launching op, op keys (by name, by shape), metadata and data problems.
#include "input/byte_source.hpp"
#include "keyed_step.hpp"
#include "profile/op_keys.hpp"
#include "profile/trace_samples.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>

#include <string>
#include <vector>

using namespace neuron_gate;

namespace {

// One ph "X" event; times are µs written as given (text), args raw JSON.
std::string event(const std::string& name, const std::string& cat, const std::string& ts, const std::string& dur,
                  const std::string& tid = "1", const std::string& args = "", const std::string& pid = "1") {
  std::string text = R"({"ph": "X", "name": ")" + name + "\"";
  if (!cat.empty()) {
    text += R"(, "cat": ")" + cat + "\"";
  }
  text += R"(, "pid": )" + pid + R"(, "tid": )" + tid + R"(, "ts": )" + ts + R"(, "dur": )" + dur;
  if (!args.empty()) {
    text += R"(, "args": )" + args;
  }
  return text + "}";
}

std::string kineto(const std::vector<std::string>& events, const std::string& head = "") {
  std::string text = "{" + head + R"("traceEvents": [)";
  for (std::size_t i = 0; i < events.size(); ++i) {
    text += (i == 0 ? "" : ",\n") + events[i];
  }
  return text + "]}";
}

TraceSamples read_text(const std::string& text, const TraceReadOptions& options = {}) {
  ByteSource source("constructed.json", text);
  return read_trace_samples(source, options);
}

Nanoseconds self_ns(const KeyedStep& step, const std::string& key) {
  return op(step, key).self_cpu_ns;
}

KeyedStep only_step(const TraceSamples& samples) {
  REQUIRE(samples.steps.size() == 1);
  return keyed(samples, samples.steps[0]);
}

}  // namespace

TEST_SUITE_BEGIN("profile::self_time");

TEST_CASE("ending exactly at the parent's end is inside, ending 1 us later belongs to the grandparent") {
  const TraceSamples samples = read_text(kineto({
      event("grandparent", "cpu_op", "0", "100"), event("parent", "cpu_op", "10", "40"),
      event("inside", "cpu_op", "20", "30"),  // ends at 50 = parent's end: child of parent
      event("across", "cpu_op", "40", "11"),  // ends at 51: child of grandparent
  }));
  const KeyedStep step = only_step(samples);
  CHECK(self_ns(step, "grandparent") == (100 - 40 - 11) * 1000);
  CHECK(self_ns(step, "parent") == (40 - 30) * 1000);
  CHECK(self_ns(step, "inside") == 30 * 1000);
  CHECK(self_ns(step, "across") == 11 * 1000);
  CHECK(samples.problems.negative_self_time.empty());
}

TEST_CASE("events are sorted by (start, -end) and ties keep file order") {
  SUBCASE("a child written before its parent") {
    const KeyedStep step = only_step(read_text(kineto({
        event("child", "cpu_op", "5", "2"),
        event("parent", "cpu_op", "0", "10"),
    })));
    CHECK(self_ns(step, "parent") == 8000);
    CHECK(self_ns(step, "child") == 2000);
  }
  SUBCASE("equal intervals: the first in the file is the parent") {
    const KeyedStep step = only_step(read_text(kineto({
        event("first", "cpu_op", "0", "10"),
        event("second", "cpu_op", "0", "10"),
    })));
    CHECK(self_ns(step, "first") == 0);
    CHECK(self_ns(step, "second") == 10000);
  }
  SUBCASE("zero-length events at the same instant nest in file order too") {
    const KeyedStep step = only_step(read_text(kineto({
        event("a", "cpu_op", "3", "0"),
        event("b", "cpu_op", "3", "0"),
        event("c", "cpu_op", "3", "0"),
    })));
    CHECK(self_ns(step, "a") == 0);
    CHECK(op(step, "c").calls == 1);
  }
}

TEST_CASE("a negative self time is kept, not clamped, and reported") {
  // PyTorch's overlap artefact: the second child starts before the first one ends.
  const TraceSamples samples = read_text(kineto({
      event("aten::div_", "cpu_op", "0", "10"),
      event("aten::to", "cpu_op", "0", "6"),
      event("aten::copy_", "cpu_op", "5", "5"),
      event("aten::div_", "cpu_op", "20", "4"),
  }));
  const KeyedStep step = only_step(samples);
  CHECK(self_ns(step, "aten::div_") == (10 - 6 - 5 + 4) * 1000);
  CHECK(op(step, "aten::div_").calls == 2);
  CHECK(samples.problems.negative_self_time == std::map<std::string, Nanoseconds>{{"aten::div_", -1000}});
}

TEST_CASE("runtime calls are rows of their own and lower their caller's self time") {
  for (const char* category : {"cuda_runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver", "Runtime"}) {
    CAPTURE(category);
    const KeyedStep step = only_step(read_text(kineto({
        event("aten::mm", "cpu_op", "0", "50"),
        event("cudaLaunchKernel", category, "10", "20"),
    })));
    CHECK(self_ns(step, "aten::mm") == 30000);
    CHECK(self_ns(step, "cudaLaunchKernel") == 20000);
    CHECK(op(step, "cudaLaunchKernel").calls == 1);
  }
}

TEST_CASE("python functions, device-side annotations and other categories take no part") {
  const TraceSamples samples = read_text(kineto({
      event("train.py(12): step", "python_function", "0", "100"),
      event("aten::add", "cpu_op", "10", "20"),
      event("ProfilerStep#1", "gpu_user_annotation", "0", "90", "7", "", "0"),
      event("PyTorch Profiler (0)", "Trace", "0", "100", "\"PyTorch Profiler\"", "", "\"Spans\""),
      event("CUPTI overhead", "overhead", "12", "3"),
  }));
  const KeyedStep step = only_step(samples);
  CHECK(step.name == "whole trace");
  CHECK_FALSE(samples.has_profiler_steps);
  CHECK(step.ops.size() == 1);
  CHECK(self_ns(step, "aten::add") == 20000);
  CHECK(samples.categories ==
        std::set<std::string>{"python_function", "cpu_op", "gpu_user_annotation", "Trace", "overhead"});
  CHECK(samples.event_count == 5);
}

TEST_CASE("utility ops PyTorch's key_averages drops neither nest nor show") {
  const KeyedStep step = only_step(read_text(kineto({
      event("my_block", "user_annotation", "0", "100"),
      event("profiler::_record_function_enter_new", "cpu_op", "1", "5"),
      event("aten::is_leaf", "cpu_op", "50", "1"),
      event("profiler::_record_function_exit", "cpu_op", "98", "2"),
  })));
  CHECK(step.ops.size() == 1);
  CHECK(self_ns(step, "my_block") == 100000);
}

TEST_CASE("threads nest apart, pid and tid as numbers or strings name the same thread") {
  const KeyedStep step = only_step(read_text(kineto({
      event("outer", "cpu_op", "0", "100", "1"),
      event("other_thread", "cpu_op", "10", "10", "2"),
      event("same_thread_as_text", "cpu_op", "20", "10", "\"1\"", "", "\"1\""),
  })));
  CHECK(self_ns(step, "outer") == 90000);
  CHECK(self_ns(step, "other_thread") == 10000);
}

TEST_CASE("legacy autograd-profiler arrays: no categories, every event is an op") {
  const TraceSamples samples = read_text(
      R"([{"name": "ProfilerStep#2", "ph": "X", "ts": 507, "dur": 204, "tid": 1, "pid": "CPU functions", "args": {}},)"
      R"( {"name": "aten::pow", "ph": "X", "ts": 538, "dur": 62, "tid": 1, "pid": "CPU functions", "args": {}},)"
      R"( {"name": "aten::to", "ph": "X", "ts": 575, "dur": 0, "tid": 1, "pid": "CPU functions", "args": {}}])");
  CHECK(samples.format == TraceFormat::legacy_array);
  CHECK(samples.has_profiler_steps);
  const KeyedStep step = only_step(samples);
  CHECK(step.name == "ProfilerStep#2");
  CHECK(self_ns(step, "ProfilerStep*") == (204 - 62) * 1000);
  CHECK(self_ns(step, "aten::pow") == 62000);
  CHECK(samples.categories == std::set<std::string>{""});
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::trace_samples");

TEST_CASE("a step is a window of its whole process: the backward thread counts, other processes do not") {
  const TraceSamples samples = read_text(kineto({
      event("ProfilerStep#1", "user_annotation", "0", "100", "1"),
      event("ProfilerStep#2", "user_annotation", "100", "100", "1"),
      event("aten::zeros", "cpu_op", "-5", "2", "1"),  // before the first step
      event("aten::mul", "cpu_op", "10", "5", "1"),
      event("MulBackward0", "cpu_op", "150", "20", "2"),          // autograd thread, step 2
      event("aten::mul", "cpu_op", "160", "5", "2"),              // nested in MulBackward0
      event("late", "cpu_op", "250", "5", "2"),                   // after the last step
      event("other_process", "cpu_op", "50", "5", "1", "", "9"),  // no step in pid 9
      event("ProfilerStep#1", "gpu_user_annotation", "0", "100", "7", "", "0"),
  }));
  CHECK(samples.has_profiler_steps);
  REQUIRE(samples.steps.size() == 2);
  const KeyedStep first = keyed(samples, samples.steps[0]);
  const KeyedStep second = keyed(samples, samples.steps[1]);
  CHECK(first.name == "ProfilerStep#1");
  CHECK(first.start_ns == 0);
  CHECK(first.duration_ns == 100000);
  CHECK(second.name == "ProfilerStep#2");
  CHECK(second.start_ns == 100000);
  CHECK(self_ns(first, "ProfilerStep*") == 95000);
  CHECK(self_ns(first, "aten::mul") == 5000);
  CHECK(op(first, "aten::mul").calls == 1);
  CHECK(self_ns(second, "ProfilerStep*") == 100000);
  CHECK(self_ns(second, "MulBackward0") == 15000);
  CHECK(self_ns(second, "aten::mul") == 5000);
  CHECK(samples.outside_steps.name == "outside steps");
  CHECK(ops_by_key(samples, samples.outside_steps).size() == 3);
  CHECK(self_ns(keyed(samples, samples.outside_steps), "aten::zeros") == 2000);
  CHECK(self_ns(keyed(samples, samples.outside_steps), "late") == 5000);
  CHECK(self_ns(keyed(samples, samples.outside_steps), "other_process") == 5000);
}

TEST_CASE("an event at a step's end instant belongs to the next step, ProfilerStep rows merge") {
  const TraceSamples samples = read_text(kineto({
      event("ProfilerStep#7", "user_annotation", "0", "10"),
      event("ProfilerStep#8", "user_annotation", "10", "10"),
      event("aten::add", "cpu_op", "10", "1"),
  }));
  REQUIRE(samples.steps.size() == 2);
  CHECK(ops_by_key(samples, samples.steps[0]).size() == 1);
  CHECK(op(keyed(samples, samples.steps[0]), "ProfilerStep*").calls == 1);
  CHECK(op(keyed(samples, samples.steps[1]), "aten::add").calls == 1);
}

TEST_CASE("steps are ordered by start whatever the file order, and old traces mark them Operator") {
  const TraceSamples samples = read_text(kineto({
      event("ProfilerStep#11", "Operator", "200", "100", "\"42\""),
      event("ProfilerStep#10", "Operator", "100", "100", "\"42\""),
  }));
  REQUIRE(samples.steps.size() == 2);
  CHECK(samples.steps[0].name == "ProfilerStep#10");
  CHECK(samples.steps[1].name == "ProfilerStep#11");
}

TEST_CASE("without steps the whole trace is one step") {
  const TraceSamples samples = read_text(kineto({
      event("aten::add", "cpu_op", "1000.500", "2"),
      event("kernel_a", "kernel", "1010", "5", "7", R"({"correlation": 1})", "0"),
  }));
  const KeyedStep step = only_step(samples);
  CHECK(step.name == "whole trace");
  CHECK(step.start_ns == 1000500);
  CHECK(step.duration_ns == 1015000 - 1000500);
  CHECK(step.unattributed_device_ns == 5000);
  CHECK(ops_by_key(samples, samples.outside_steps).empty());
}

TEST_CASE("ops keyed by shape: name, Input Dims and Input type as Python prints them") {
  const std::string text = kineto({
      event("aten::mm", "cpu_op", "0", "10", "1",
            R"({"Input Dims": [[16, 32], [32, 8]], "Input type": ["float", "float"]})"),
      event("aten::mm", "cpu_op", "20", "10", "1",
            R"({"Input Dims": [[8, 32], [32, 8]], "Input type": ["float", "float"]})"),
      event("aten::add", "cpu_op", "40", "3", "1", R"({"Input dims": [[4, 1], [], []]})"),
      event("aten::cat", "cpu_op", "50", "3", "1",
            R"({"Input Dims": [[[2, 3], [2, 3]], []], "Input type": ["TensorList", "Scalar"]})"),
      event("aten::empty", "cpu_op", "60", "1"),
  });
  SUBCASE("by name (default): shapes are still recorded per op") {
    const TraceSamples samples = read_text(text);
    const KeyedStep step = only_step(samples);
    CHECK(op(step, "aten::mm").calls == 2);
    CHECK(samples.input_shapes.at("aten::mm") == std::set<std::string>{"[[16, 32], [32, 8]]", "[[8, 32], [32, 8]]"});
    CHECK(samples.input_shapes.at("aten::add") == std::set<std::string>{"[[4, 1], [], []]"});
    CHECK(samples.input_shapes.count("aten::empty") == 0);
  }
  SUBCASE("by shape") {
    const KeyedStep step = only_step(read_text(text, {true}));
    std::vector<std::string> keys;
    for (const auto& [key, values] : step.ops) {
      keys.push_back(key);
    }
    CHECK(keys == std::vector<std::string>{
                      "aten::add [[4, 1], [], []]",
                      "aten::cat [[[2, 3], [2, 3]], []] ['TensorList', 'Scalar']",
                      "aten::empty",
                      "aten::mm [[16, 32], [32, 8]] ['float', 'float']",
                      "aten::mm [[8, 32], [32, 8]] ['float', 'float']",
                  });
  }
}

TEST_CASE("top-level scalars, distributedInfo and the deviceProperties count become metadata") {
  const TraceSamples samples = read_text(
      kineto({event("aten::add", "cpu_op", "0", "1")},
             R"("schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU"}, {"id": 1}], "record_shapes": 1,)"
             R"("with_stack": false, "displayTimeUnit": "ms", "INFO": ["a", "b"],)"
             R"("distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8, "pg_config": [{"pg_size": 8}]},)"));
  CHECK(samples.metadata == std::map<std::string, std::string>{
                                {"schemaVersion", "1"},
                                {"deviceProperties.count", "2"},
                                {"deviceProperties.names", "\"GPU\""},
                                {"record_shapes", "1"},
                                {"with_stack", "false"},
                                {"displayTimeUnit", "\"ms\""},
                                {"distributedInfo.backend", "\"nccl\""},
                                {"distributedInfo.rank", "3"},
                                {"distributedInfo.world_size", "8"},
                            });
}

TEST_CASE("events without a usable name, ts or dur are excluded and counted") {
  const TraceSamples samples = read_text(kineto({
      R"({"ph": "X", "cat": "cpu_op", "name": "no_dur", "pid": 1, "tid": 1, "ts": 1})",
      R"({"ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 1, "dur": 1})",
      event("bad_ts", "cpu_op", "\"soon\"", "1"),
      event("huge_ts", "cpu_op", "1e30", "1"),
      event("ok", "cpu_op", "\"2.5\"", "\"1.25\""),
      event("centuries", "cpu_op", "1", "9223372036854775"),
      R"({"ph": "i", "name": "instant", "pid": 1, "tid": 1, "ts": 3, "s": "t"})",
      R"({"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}})",
  }));
  CHECK(samples.problems.malformed_events == 5);
  CHECK(samples.event_count == 6);
  CHECK(self_ns(only_step(samples), "ok") == 1250);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::device_attribution");

TEST_CASE("the runtime event with the same correlation comes first, its innermost enclosing op launched") {
  // The kernel's External id (1) names the outer op, as traces that reuse ids do; the runtime path wins.
  const TraceSamples samples = read_text(kineto({
      event("ProfilerStep#1", "user_annotation", "0", "100"),
      event("aten::linear", "cpu_op", "5", "90", "1", R"({"External id": 1})"),
      event("aten::addmm", "cpu_op", "10", "40", "1", R"({"External id": 2})"),
      event("cudaLaunchKernel", "cuda_runtime", "20", "10", "1", R"({"correlation": 7, "External id": 1})"),
      event("gemm", "kernel", "150", "30", "7", R"({"correlation": 7, "External id": 1})", "0"),
      event("gemm", "kernel", "180", "20", "7", R"({"correlation": 7})", "0"),
  }));
  REQUIRE(samples.steps.size() == 1);
  const KeyedStep step = keyed(samples, samples.steps[0]);
  // launched in step 1 although the kernels ran after it ended
  CHECK(op(step, "aten::addmm").device_ns == 50000);
  CHECK(op(step, "aten::linear").device_ns == 0);
  CHECK(op(step, "cudaLaunchKernel").device_ns == 0);
  CHECK(step.device_kernels == std::map<std::string, Nanoseconds>{{"gemm", 50000}});
  CHECK(step.unattributed_device_ns == 0);
  CHECK(samples.has_device_events);
  CHECK(samples.outside_steps.device_kernels.empty());
}

TEST_CASE("user annotations between the op and the runtime call are skipped") {
  const KeyedStep step = only_step(read_text(kineto({
      event("aten::copy_", "cpu_op", "0", "100", "1", R"({"External id": 5})"),
      event("my_region", "user_annotation", "10", "80"),
      event("cudaMemcpyAsync", "cuda_runtime", "20", "10", "1", R"({"correlation": 8})"),
      event("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", "40", "7", "7", R"({"correlation": 8})", "0"),
      event("Memset (Device)", "gpu_memset", "50", "3", "7", R"({"correlation": 8})", "0"),
  })));
  CHECK(op(step, "aten::copy_").device_ns == 10000);
  CHECK(op(step, "my_region").device_ns == 0);
}

TEST_CASE("without a runtime event, External id links, absent or 0 means unattributed") {
  const TraceSamples samples = read_text(kineto({
      event("ProfilerStep#1", "user_annotation", "0", "100"),
      event("aten::mul", "cpu_op", "10", "10", "1", R"({"External id": 3})"),
      event("k_linked", "kernel", "30", "4", "7", R"({"correlation": 99, "External id": 3})", "0"),
      event("k_zero", "kernel", "40", "5", "7", R"({"External id": 0})", "0"),
      event("k_absent", "kernel", "50", "6", "7", "", "0"),
      event("k_after", "kernel", "150", "7", "7", "", "0"),  // no launch, in no step window
  }));
  REQUIRE(samples.steps.size() == 1);
  const KeyedStep step = keyed(samples, samples.steps[0]);
  CHECK(op(step, "aten::mul").device_ns == 4000);
  // device time without a launch goes to the step whose window holds it, else outside: never dropped
  CHECK(step.unattributed_device_ns == 11000);
  CHECK(samples.outside_steps.unattributed_device_ns == 7000);
  CHECK(samples.outside_steps.device_kernels.at("k_after") == 7000);
}

TEST_CASE("a runtime call outside every op leaves its device time unattributed, in the call's step") {
  const TraceSamples samples = read_text(kineto({
      event("ProfilerStep#1", "user_annotation", "0", "100"),
      event("cudaDeviceSynchronize", "cuda_runtime", "90", "5", "1", R"({"correlation": 4})"),
      event("sync_kernel", "kernel", "120", "2", "7", R"({"correlation": 4})", "0"),
  }));
  REQUIRE(samples.steps.size() == 1);
  CHECK(samples.steps[0].unattributed_device_ns == 2000);
  CHECK(samples.steps[0].device_kernels.at("sync_kernel") == 2000);
}

TEST_CASE("2021 categories: Operator, Runtime, Kernel, Memcpy, Memset and lower-case external id") {
  const KeyedStep step = only_step(read_text(kineto({
      event("aten::conv2d", "Operator", "0", "100", "\"9\"", R"({"External id": 12})", "9"),
      event("cudaLaunchKernel", "Runtime", "10", "5", "\"9\"", R"({"correlation": 40, "external id": 12})", "9"),
      event("conv_kernel", "Kernel", "20", "50", "\"stream 7\"", R"({"correlation": 40, "external id": 12})", "0"),
      event("Memcpy DtoH", "Memcpy", "80", "3", "\"stream 7\"", R"({"correlation": 41, "external id": 12})", "0"),
      event("Memset (Device)", "Memset", "90", "1", "\"stream 7\"", R"({"correlation": 42, "external id": 0})", "0"),
  })));
  CHECK(op(step, "aten::conv2d").device_ns == 53000);  // kernel by correlation, memcpy by external id
  CHECK(step.unattributed_device_ns == 1000);
  CHECK(self_ns(step, "aten::conv2d") == 95000);
}

TEST_CASE("correlation and External id above INT64_MAX still link") {
  const KeyedStep step = only_step(read_text(kineto({
      event("aten::mm", "cpu_op", "0", "10", "1", R"({"External id": 18446744073709551615})"),
      event("cudaLaunchKernel", "cuda_runtime", "1", "2", "1", R"({"correlation": 18446744073709551614})"),
      event("k1", "kernel", "5", "1", "7", R"({"correlation": 18446744073709551614})", "0"),
      event("k2", "kernel", "6", "2", "7", R"({"External id": 18446744073709551615})", "0"),
  })));
  CHECK(op(step, "aten::mm").device_ns == 3000);
}

TEST_CASE("ids of 2^31 or more are kept apart from ids equal in their low bits") {
  // 2147483653 = 2^31 + 5 and 4294967301 = 2^32 + 5: stored as 32-bit codes, they must link only to themselves.
  const KeyedStep step = only_step(read_text(kineto({
      event("op_small", "cpu_op", "0", "10", "1", R"({"External id": 5})"),
      event("op_wide", "cpu_op", "20", "10", "1", R"({"External id": 4294967301})"),
      event("launch_small", "cuda_runtime", "1", "2", "1", R"({"correlation": 5})"),
      event("launch_wide", "cuda_runtime", "21", "2", "1", R"({"correlation": 2147483653})"),
      event("k_small", "kernel", "40", "1", "7", R"({"correlation": 5})", "0"),
      event("k_wide", "kernel", "41", "2", "7", R"({"correlation": 2147483653})", "0"),
      event("k_ext_wide", "kernel", "44", "4", "7", R"({"correlation": 9, "External id": 4294967301})", "0"),
      event("k_ext_other", "kernel", "49", "8", "7", R"({"correlation": 9, "External id": 2147483653})", "0"),
  })));
  CHECK(op(step, "op_small").device_ns == 1000);
  CHECK(op(step, "op_wide").device_ns == 2000 + 4000);
  CHECK(step.unattributed_device_ns == 8000);
}

TEST_CASE("torch_npu: uncategorised tasks of the Ascend Hardware process are device time, linked by flows") {
  const std::string text =
      "[" + event("ProfilerStep#1", "cpu_op", "\"100.000\"", "500", "1", "", "11") + ",\n" +
      event("aten::zero_", "cpu_op", "\"110.000\"", "50", "1", "", "11") + ",\n" +
      R"({"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 77, "pid": 11, "tid": 1, "ts": "120.000", "cat": "async_npu"},)"
      "\n" +
      event("ZerosLike", "", "\"130.500\"", "1.35", "3", "", "800") + ",\n" +
      R"({"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 77, "pid": 800, "tid": 3, "ts": "130.500", "cat": "async_npu"},)"
      "\n" +
      event("Orphan", "", "\"140.000\"", "2", "3", "", "800") + ",\n" +
      event("Computing", "", "\"130.500\"", "1.35", "0", "", "4376751100") + ",\n" +
      event("AscendCL@aclrtSynchronizeStream", "", "\"150\"", "9", "1", "", "43767502") + ",\n" +
      R"({"ph": "M", "name": "process_name", "pid": 800, "tid": 0, "args": {"name": "Ascend Hardware"}},)"
      R"({"ph": "M", "name": "process_labels", "pid": 800, "tid": 0, "args": {"labels": "NPU"}},)"
      R"({"ph": "M", "name": "process_name", "pid": 4376751100, "tid": 0, "args": {"name": "Overlap Analysis"}},)"
      R"({"ph": "M", "name": "process_labels", "pid": 4376751100, "tid": 0, "args": {"labels": "NPU"}},)"
      R"({"ph": "M", "name": "process_labels", "pid": 43767502, "tid": 0, "args": {"labels": "CPU"}}])";
  const TraceSamples samples = read_text(text);
  REQUIRE(samples.steps.size() == 1);
  const KeyedStep step = keyed(samples, samples.steps[0]);
  CHECK(op(step, "aten::zero_").device_ns == 1350);
  CHECK(step.unattributed_device_ns == 2000);
  CHECK(step.device_kernels == std::map<std::string, Nanoseconds>{{"Orphan", 2000}, {"ZerosLike", 1350}});
  // the Overlap Analysis summary and CANN's host API calls are neither device time nor ops
  CHECK(step.ops.size() == 2);
  CHECK(ops_by_key(samples, samples.outside_steps).empty());
  CHECK(samples.has_device_events);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("profile::op_keys");

TEST_CASE("sparse steps: 300 steps of one op each are summed in hash maps, one op per step, keys sorted") {
  // 301 slots x 301 keys is past both 2 x 600 events and 65,536 cells: the totals are hashed per step
  std::vector<std::string> events;
  for (int s = 0; s < 300; ++s) {
    const std::string start = std::to_string(1000 + 100 * s);
    char name[16];
    std::snprintf(name, sizeof name, "op_%03d", 299 - s);  // keys meet in reverse order of their text
    events.push_back(event("ProfilerStep#" + std::to_string(s + 1), "user_annotation", start, "50"));
    events.push_back(event(name, "cpu_op", std::to_string(1010 + 100 * s), std::to_string(s % 30 + 1)));
  }
  const TraceSamples samples = read_text(kineto(events));
  REQUIRE(samples.steps.size() == 300);
  REQUIRE(samples.op_keys.size() == 301);  // ProfilerStep* and op_000 .. op_299
  CHECK(samples.op_keys.front() == "ProfilerStep*");
  CHECK(samples.op_keys[1] == "op_000");
  CHECK(std::is_sorted(samples.op_keys.begin(), samples.op_keys.end()));
  for (int s = 0; s < 300; ++s) {
    CAPTURE(s);
    const KeyedStep step = keyed(samples, samples.steps[static_cast<std::size_t>(s)]);
    REQUIRE(step.ops.size() == 2);
    char name[16];
    std::snprintf(name, sizeof name, "op_%03d", 299 - s);
    CHECK(op(step, name).self_cpu_ns == 1000 * (s % 30 + 1));
    CHECK(op(step, name).calls == 1);
    CHECK(op(step, "ProfilerStep*").self_cpu_ns == 50'000 - 1000 * (s % 30 + 1));
  }
}

TEST_CASE("op keys: add_op inserts a key in order and renumbers every step, set_trace_ops keeps only held keys") {
  TraceSamples trace;
  trace.steps.resize(2);
  set_trace_ops(trace, {{{"b", OpValues{1, 0, 1}}}, {{"b", OpValues{2, 0, 1}}, {"d", OpValues{3, 0, 1}}}, {}});
  CHECK(trace.op_keys == std::vector<std::string>{"b", "d"});
  CHECK(trace.steps[1].ops == std::vector<OpSample>{{0, OpValues{2, 0, 1}}, {1, OpValues{3, 0, 1}}});
  add_op(trace, trace.steps[0], "a").device_ns = 7;
  add_op(trace, trace.outside_steps, "c").calls = 4;
  CHECK(trace.op_keys == std::vector<std::string>{"a", "b", "c", "d"});
  CHECK(trace.steps[0].ops == std::vector<OpSample>{{0, OpValues{0, 7, 0}}, {1, OpValues{1, 0, 1}}});
  CHECK(trace.steps[1].ops == std::vector<OpSample>{{1, OpValues{2, 0, 1}}, {3, OpValues{3, 0, 1}}});
  CHECK(trace.outside_steps.ops == std::vector<OpSample>{{2, OpValues{0, 0, 4}}});
  add_op(trace, trace.steps[1], "b").self_cpu_ns += 5;  // a known key: no new id
  CHECK(trace.op_keys.size() == 4);
  CHECK(find_op(trace, trace.steps[1], "b")->self_cpu_ns == 7);
  CHECK(find_op(trace, trace.steps[1], "a") == nullptr);
  CHECK(find_op(trace, trace.steps[0], "zz") == nullptr);
}

TEST_SUITE_END();
