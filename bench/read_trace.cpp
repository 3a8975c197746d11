// Reads trace files with read_trace_samples and prints what was read as JSON, plus the time taken.
// Used by bench/read_trace.sh to time the reader on large traces and to diff against
// tests/tools/trace_expected.py. Not part of the build or of ctest.
#include "profile/trace_samples.hpp"
#include "util/error.hpp"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <iostream>

int main(int argc, char** argv) {
  bool by_shape = false;
  bool quiet = false;
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--by-shape") == 0) {
      by_shape = true;
      continue;
    }
    if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
      continue;
    }
    const auto start = std::chrono::steady_clock::now();
    try {
      const neuron_gate::TraceSamples samples = neuron_gate::read_trace_samples(argv[i], {by_shape});
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::cerr << argv[i] << ": " << samples.event_count << " events, " << samples.steps.size()
                << " steps, read in " << seconds << " s\n";
      if (quiet) {
        continue;
      }
      nlohmann::json out;
      const auto step_json = [&samples](const neuron_gate::StepSample& step) {
        nlohmann::json j;
        j["name"] = step.name;
        for (const auto& [op, v] : step.ops) {
          j["ops"][samples.op_keys[op]] = {v.self_cpu_ns, v.calls, v.device_ns};
        }
        for (const auto& [key, ns] : step.device_kernels) {
          j["kernels"][key] = ns;
        }
        j["unattributed"] = step.unattributed_device_ns;
        return j;
      };
      for (const auto& step : samples.steps) {
        out["steps"].push_back(step_json(step));
      }
      out["outside"] = step_json(samples.outside_steps);
      out["problems"] = {{"unfinished", samples.problems.unfinished_events},
                         {"negative", samples.problems.negative_duration_events},
                         {"malformed", samples.problems.malformed_events}};
      out["metadata"] = samples.metadata;
      std::cout << out.dump(1) << "\n";
    } catch (const neuron_gate::InputError& error) {
      std::cerr << "error: " << error.what() << "\n";
      status = 2;
    }
  }
  return status;
}
