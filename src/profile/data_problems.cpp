#include "profile/data_problems.hpp"

#include <algorithm>
#include <string>

namespace neuron_gate {

const char* data_problem_text(DataProblemKind kind) {
  switch (kind) {
  case DataProblemKind::bad_duration:
    return "events whose dur is not a number (missing, null, a string, NaN): excluded";
  case DataProblemKind::bad_timestamp:
    return "events whose ts is not a number (missing, null, a string, NaN): excluded";
  case DataProblemKind::time_out_of_range:
    return "events with a ts or dur beyond a century: excluded";
  case DataProblemKind::missing_name:
    return "events without a name: excluded";
  case DataProblemKind::name_truncated:
    return "names longer than the name limit: cut, with their length and hash kept";
  case DataProblemKind::invalid_utf8:
    return "names with invalid UTF-8: shown with U+FFFD";
  }
  return "data problems";
}

const char* data_problem_id(DataProblemKind kind) {
  switch (kind) {
  case DataProblemKind::bad_duration:
    return "bad_duration";
  case DataProblemKind::bad_timestamp:
    return "bad_timestamp";
  case DataProblemKind::time_out_of_range:
    return "time_out_of_range";
  case DataProblemKind::missing_name:
    return "missing_name";
  case DataProblemKind::name_truncated:
    return "name_truncated";
  case DataProblemKind::invalid_utf8:
    return "invalid_utf8";
  }
  return "unknown";
}

std::string data_problem_line(const DataProblem& problem) {
  std::string line = problem.file + ": " + std::to_string(problem.count) + " " + data_problem_text(problem.kind);
  if (!problem.example.empty()) {
    line += "; first: " + problem.example;
  }
  if (problem.byte) {
    line += " near byte " + std::to_string(*problem.byte);
  }
  return line;
}

void count_data_problem(std::vector<DataProblem>& problems, DataProblemKind kind, const std::string& file,
                        std::optional<std::uint64_t> byte, const std::string& example) {
  const auto it = std::find_if(problems.begin(), problems.end(),
                               [&](const DataProblem& p) { return p.kind == kind && p.file == file; });
  if (it != problems.end()) {
    ++it->count;
    return;
  }
  problems.push_back({kind, file, 1, byte, example});
}

} // namespace neuron_gate
