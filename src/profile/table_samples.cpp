#include "profile/table_samples.hpp"

namespace neuron_gate {

TraceSamples samples_from_table(const KeyAveragesTable& table, const std::string& path, bool by_shape) {
  TraceSamples samples;
  samples.path = path;
  samples.format = TraceFormat::key_averages_table;
  StepSample step;
  step.name = "table";
  step.duration_ns = table.self_cpu_time_total_ns.value_or(0);
  for (const KeyAveragesRow& row : table.rows) {
    std::string key = row.name;
    if (by_shape && row.input_shapes) {
      key += " " + *row.input_shapes;
    }
    OpValues& values = step.ops[key];
    const Nanoseconds self_cpu = row.self_cpu_ns.value_or(0);
    values.self_cpu_ns += self_cpu;
    if (row.device) {
      values.device_ns += row.device->self_ns.value_or(0);
      samples.has_device_events = samples.has_device_events || row.device->self_ns.value_or(0) != 0;
    }
    values.calls += row.calls.value_or(0);
    if (self_cpu < 0) {
      auto [it, inserted] = samples.problems.negative_self_time.emplace(row.name, self_cpu);
      if (!inserted && self_cpu < it->second) {
        it->second = self_cpu;
      }
    }
    ++samples.event_count;
  }
  samples.input_shapes = table_input_shapes(table);
  if (table.device_backend) {
    samples.categories.insert("table device " + *table.device_backend);
  }
  samples.steps.push_back(std::move(step));
  return samples;
}

std::map<std::string, std::set<std::string>> table_input_shapes(const KeyAveragesTable& table) {
  std::map<std::string, std::set<std::string>> shapes;
  for (const KeyAveragesRow& row : table.rows) {
    if (row.input_shapes) {
      shapes[row.name].insert(*row.input_shapes);
    }
  }
  return shapes;
}

} // namespace neuron_gate
