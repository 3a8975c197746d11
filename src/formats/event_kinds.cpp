#include "formats/event_kinds.hpp"

#include <array>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace neuron_gate {

bool is_cpu_side(EventKind kind) {
  return kind == EventKind::cpu_op || kind == EventKind::user_annotation || kind == EventKind::runtime;
}

namespace {

const std::unordered_map<std::string_view, EventKind>& category_kinds() {
  static const std::unordered_map<std::string_view, EventKind> kinds = {
      {"cpu_op", EventKind::cpu_op},
      {"Operator", EventKind::cpu_op},
      {"user_annotation", EventKind::user_annotation},
      {"cuda_runtime", EventKind::runtime},
      {"cuda_driver", EventKind::runtime},
      {"privateuse1_runtime", EventKind::runtime},
      {"privateuse1_driver", EventKind::runtime},
      {"xpu_runtime", EventKind::runtime},
      {"xpu_driver", EventKind::runtime},
      {"mtia_runtime", EventKind::runtime},
      {"Runtime", EventKind::runtime},
      {"kernel", EventKind::device},
      {"gpu_memcpy", EventKind::device},
      {"gpu_memset", EventKind::device},
      {"Kernel", EventKind::device},
      {"Memcpy", EventKind::device},
      {"Memset", EventKind::device},
      {"mtia_ccp_events", EventKind::device},  // MTIA (Meta's accelerator): DMA and kernel events of the device
  };
  return kinds;
}

// Names PyTorch's key_averages never shows (torch/autograd/profiler.py _filter_name): they take no
// part in the nesting either, so their time stays in their parent's self time.
bool filtered_name(const std::string& name) {
  static const std::array<std::string_view, 8> names = {
      "profiler::_record_function_enter",
      "profiler::_record_function_enter_new",
      "profiler::_record_function_exit",
      "aten::is_leaf",
      "aten::output_nr",
      "aten::_version",
      "[memory]",
      "[OutOfMemory]",
  };
  for (const std::string_view filtered : names) {
    if (name == filtered) {
      return true;
    }
  }
  return false;
}

// torch_npu writes device tasks without a category in the process named "Ascend Hardware",
// labelled NPU. Its other NPU-labelled processes ("Overlap Analysis", "HCCL", ...) summarise
// those same tasks, so counting them too would count device time twice.
bool is_device_process(const TraceProcess& process) {
  return process.labels == "NPU" && process.name == "Ascend Hardware";
}

}  // namespace

void classify_events(RawTrace& trace, bool any_categorised_event) {
  std::vector<EventKind> category_kind(trace.categories.size(), EventKind::ignored);
  for (std::size_t i = 0; i < trace.categories.size(); ++i) {
    const auto found = category_kinds().find(trace.categories[i]);
    if (found != category_kinds().end()) {
      category_kind[i] = found->second;
    }
  }
  std::vector<char> name_filtered(trace.names.size());
  for (std::size_t i = 0; i < trace.names.size(); ++i) {
    name_filtered[i] = filtered_name(trace.names[i]) ? 1 : 0;
  }
  for (TraceEvent& event : trace.unusable) {
    event.kind = category_kind[trace.key(event).category];
    if (trace.key(event).category == 0 && !any_categorised_event) {
      event.kind = EventKind::cpu_op;
    }
  }
  for (TraceEvent& event : trace.events) {
    EventKind kind = category_kind[trace.key(event).category];
    if (trace.key(event).category == 0) {
      if (!any_categorised_event) {
        kind = EventKind::cpu_op;  // legacy autograd-profiler trace: no categories at all
      } else if (is_device_process(trace.processes[trace.threads[event.thread].process])) {
        kind = EventKind::device;
      }
    }
    if (is_cpu_side(kind) && name_filtered[trace.name_id(event)] != 0) {
      kind = EventKind::ignored;
    }
    event.kind = kind;
  }
}

}  // namespace neuron_gate
