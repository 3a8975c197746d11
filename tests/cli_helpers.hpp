#pragma once
// Helpers for tests that run the command line in process.

#include "cli.hpp"
#include "test_files.hpp"

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

// A comparison run in process and the JSON report it wrote (null when it wrote none).
struct Compared {
  CliResult result;
  nlohmann::json report;
};

// `neuron-gate compare BASE HEAD --no-git --json FILE EXTRA...`, FILE in a scratch folder.
inline Compared compare_json(const std::string& base, const std::string& head, std::vector<std::string> extra = {}) {
  const std::string json_path = (scratch("compare-json") / "report.json").string();
  std::vector<std::string> args{"compare", base, head, "--no-git", "--json", json_path};
  args.insert(args.end(), extra.begin(), extra.end());
  Compared compared{run(args), nullptr};
  if (std::filesystem::exists(json_path)) {
    compared.report = nlohmann::json::parse(read_text(json_path));
  }
  return compared;
}

}  // namespace neuron_gate::testing
