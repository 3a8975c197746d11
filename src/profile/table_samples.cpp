#include "profile/table_samples.hpp"

#include "profile/op_keys.hpp"

#include <algorithm>

namespace neuron_gate {
namespace {

bool has_cpu_columns(const KeyAveragesTable& table) {
  return std::any_of(table.rows.begin(), table.rows.end(),
                     [](const KeyAveragesRow& row) { return row.self_cpu_ns || row.cpu_total_ns; });
}

// A device event's own row: no CPU time at all (only meaningful when the table has CPU columns).
bool device_event_row(const KeyAveragesRow& row) {
  return row.self_cpu_ns.value_or(0) == 0 && row.cpu_total_ns.value_or(0) == 0;
}

Nanoseconds self_device(const KeyAveragesRow& row) {
  return row.device ? row.device->self_ns.value_or(0) : 0;
}

}  // namespace

TableDeviceRows table_device_rows(const KeyAveragesTable& table) {
  Nanoseconds sum = 0;
  for (const KeyAveragesRow& row : table.rows) {
    sum += self_device(row);
  }
  const auto footer = table.self_device_time_total_ns;
  if (!footer || static_cast<double>(sum) <= static_cast<double>(*footer) * 1.01 + 1000.0) {
    return TableDeviceRows::all;  // every device ns once (or no footer to tell)
  }
  return has_cpu_columns(table) ? TableDeviceRows::ops_only : TableDeviceRows::unreadable;
}

std::string table_device_rows_note(const KeyAveragesTable& table) {
  switch (table_device_rows(table)) {
  case TableDeviceRows::ops_only:
    return "device time read from the op rows only: the rows without CPU time (kernels, copies) are the same "
           "device time again, already in their launching op's Self " +
           table.device_backend.value_or("device");
  case TableDeviceRows::unreadable:
    return "device time not read: the rows' Self " + table.device_backend.value_or("device") +
           " sums past the footer's total (a kernel counted in its op and in its own row) and without CPU "
           "columns the two cannot be told apart";
  case TableDeviceRows::all:
    break;
  }
  return "";
}

TraceSamples samples_from_table(const KeyAveragesTable& table, const std::string& path, bool by_shape) {
  TraceSamples samples;
  samples.path = path;
  samples.format = TraceFormat::key_averages_table;
  const TableDeviceRows device_rows = table_device_rows(table);
  StepSample step;
  std::map<std::string, OpValues> ops;
  step.name = "table";
  step.duration_ns = table.self_cpu_time_total_ns.value_or(0);
  for (const KeyAveragesRow& row : table.rows) {
    std::string key = row.name;
    if (by_shape && row.input_shapes) {
      key += " " + *row.input_shapes;
    }
    OpValues& values = ops[key];
    const Nanoseconds self_cpu = row.self_cpu_ns.value_or(0);
    values.self_cpu_ns += self_cpu;
    const bool device_read =
        device_rows == TableDeviceRows::all || (device_rows == TableDeviceRows::ops_only && !device_event_row(row));
    if (device_read) {
      values.device_ns += self_device(row);
      samples.has_device_events = samples.has_device_events || self_device(row) != 0;
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
  set_trace_ops(samples, {ops});
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

}  // namespace neuron_gate
