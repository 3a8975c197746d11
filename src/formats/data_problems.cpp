#include "formats/data_problems.hpp"

#include <algorithm>
#include <cstdio>
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
  case DataProblemKind::unfinished:
    return "unfinished events (dur -1): excluded";
  case DataProblemKind::negative_duration:
    return "events with a negative duration: excluded";
  case DataProblemKind::device_out_of_range:
    return "device events at ts 0 or outside the trace's time range: excluded";
  case DataProblemKind::longer_than_step:
    return "events longer than the step (or trace) that holds them: excluded";
  case DataProblemKind::duplicate:
    return "exact duplicate events (same name, thread, ts, dur and args): the repeats excluded";
  case DataProblemKind::cut_off_step:
    return "last steps far shorter than their siblings (cut off when the profiler stopped): excluded";
  case DataProblemKind::device_time_lost:
    return "runtime calls with a correlation id and no device event in the trace (device time lost; "
           "synchronize the device before the profiler exports)";
  case DataProblemKind::device_events_missing:
    return "launches whose device events are missing (runtime calls of a name that launched device work, or "
           "with a flow but no device event): device time missing for the ops that launched them";
  case DataProblemKind::overlapping_device_events:
    return "device events starting before the previous one on their stream ended: counted, kept (their "
           "device time may be counted twice)";
  case DataProblemKind::shared_correlation:
    return "device events sharing a correlation id with an earlier device event: counted, kept (one launch of "
           "several kernels, or ids reused)";
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
  case DataProblemKind::unfinished:
    return "unfinished";
  case DataProblemKind::negative_duration:
    return "negative_duration";
  case DataProblemKind::device_out_of_range:
    return "device_out_of_range";
  case DataProblemKind::longer_than_step:
    return "longer_than_step";
  case DataProblemKind::duplicate:
    return "duplicate";
  case DataProblemKind::cut_off_step:
    return "cut_off_step";
  case DataProblemKind::device_time_lost:
    return "device_time_lost";
  case DataProblemKind::device_events_missing:
    return "device_events_missing";
  case DataProblemKind::overlapping_device_events:
    return "overlapping_device_events";
  case DataProblemKind::shared_correlation:
    return "shared_correlation";
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
  line += excluded_time_text(problem);
  return line;
}

std::string excluded_time_text(const DataProblem& problem) {
  const auto part = [](Nanoseconds ns, const std::optional<double>& share, const char* what) {
    char text[96];
    std::snprintf(text, sizeof text, "%.3f ms %s", static_cast<double>(ns) / 1e6, what);
    std::string out = text;
    if (share) {
      std::snprintf(text, sizeof text, " (%.2f%% of the side's)", *share * 100.0);
      out += text;
    }
    return out;
  };
  std::string text;
  if (problem.kind == DataProblemKind::device_time_lost) {
    return "; device time unknown (100% of the side's treated as excluded)";
  }
  if (problem.excluded_cpu_ns > 0) {
    text += part(problem.excluded_cpu_ns, problem.cpu_share, "CPU time");
  }
  if (problem.excluded_device_ns > 0) {
    text += (text.empty() ? "" : ", ") + part(problem.excluded_device_ns, problem.device_share, "device time");
  }
  return text.empty() ? text : "; excluded " + text;
}

bool is_screened_kind(DataProblemKind kind) {
  switch (kind) {
  case DataProblemKind::unfinished:
  case DataProblemKind::negative_duration:
  case DataProblemKind::device_out_of_range:
  case DataProblemKind::longer_than_step:
  case DataProblemKind::duplicate:
  case DataProblemKind::cut_off_step:
  case DataProblemKind::device_time_lost:
  case DataProblemKind::device_events_missing:
    return true;
  default:
    return false;
  }
}

double excluded_cpu_share(const ScreenedTime& time) {
  const Nanoseconds all = time.kept_cpu_ns + time.excluded_cpu_ns;
  return all > 0 ? static_cast<double>(time.excluded_cpu_ns) / static_cast<double>(all) : 0.0;
}

double excluded_device_share(const ScreenedTime& time) {
  if (time.device_time_lost) {
    return 1.0;
  }
  const Nanoseconds all = time.kept_device_ns + time.excluded_device_ns;
  return all > 0 ? static_cast<double>(time.excluded_device_ns) / static_cast<double>(all) : 0.0;
}

void add_screened_time(ScreenedTime& total, const ScreenedTime& part) {
  total.kept_cpu_ns += part.kept_cpu_ns;
  total.kept_device_ns += part.kept_device_ns;
  total.excluded_cpu_ns += part.excluded_cpu_ns;
  total.excluded_device_ns += part.excluded_device_ns;
  total.device_time_lost = total.device_time_lost || part.device_time_lost;
}

DataProblem& count_data_problem(std::vector<DataProblem>& problems, DataProblemKind kind, const std::string& file,
                                std::optional<std::uint64_t> byte, const std::string& example) {
  const auto it = std::find_if(problems.begin(), problems.end(),
                               [&](const DataProblem& p) { return p.kind == kind && p.file == file; });
  if (it != problems.end()) {
    ++it->count;
    return *it;
  }
  problems.push_back({kind, file, 1, byte, example});
  return problems.back();
}

}  // namespace neuron_gate
