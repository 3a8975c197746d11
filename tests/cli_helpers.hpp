#pragma once
// Helpers for tests that run the command line in process.

#include "cli.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace neuron_gate::testing {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `neuron-gate ARGS...` in process.
inline CliResult run(std::vector<std::string> args) {
  args.insert(args.begin(), "neuron-gate");
  std::vector<const char*> argv;
  for (const std::string& arg : args) {
    argv.push_back(arg.c_str());
  }
  std::ostringstream out, err;
  CliResult result;
  result.exit_code = neuron_gate::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  result.out = out.str();
  result.err = err.str();
  return result;
}

inline std::string example(const std::string& variant) {
  return std::string(NEURON_GATE_SOURCE_DIR) + "/examples/rmsnorm-4x512/" + variant;
}

inline std::string data(const std::string& relative) {
  return std::string(NEURON_GATE_TEST_DATA) + "/" + relative;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A fresh scratch folder under the system temp folder. The process id is in its name: ctest -j runs
// each test case as a process of its own, and cases that share a name must not remove each other's files.
inline std::filesystem::path scratch(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("neuron-gate-test-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// The conditions row of a JSON report with this name, or null.
inline nlohmann::json condition(const nlohmann::json& report, const std::string& name) {
  for (const nlohmann::json& row : report["conditions"]) {
    if (row["name"] == name) {
      return row;
    }
  }
  return nullptr;
}

// The metric of a JSON report with this class and name, or null.
inline nlohmann::json find_metric(const nlohmann::json& report, const std::string& metric_class,
                                  const std::string& name) {
  for (const auto& metric : report["metrics"]) {
    if (metric["class"] == metric_class && metric["name"] == name) {
      return metric;
    }
  }
  return nullptr;
}

}  // namespace neuron_gate::testing
