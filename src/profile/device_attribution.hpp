#pragma once
// Device events (kernel, gpu_memcpy, gpu_memset) -> the CPU op that launched them
// (DESIGN.md section 2, NEURON-FORMATS.md section 6.6).

#include "profile/kineto_trace.hpp"
#include "profile/self_time.hpp"
#include "util/units.hpp"

#include <cstdint>
#include <vector>

namespace neuron_gate {

// How a device event was tied to its launch.
enum class LaunchLink : std::uint8_t {
  correlation,  // args.correlation == a runtime event's args.correlation
  external_id,  // no such runtime event; a cpu_op with the same non-zero External id
  flow,         // neither; a flow arrow (ac2g, async_npu, ...) ends at the event's start
  none,         // no launch found: unattributed device time
};

// Where one device event came from.
struct DeviceLaunch {
  std::uint32_t event = k_no_event;   // the device event (index into RawTrace::events)
  std::uint32_t op = k_no_event;      // launching cpu_op, or k_no_event (unattributed)
  LaunchLink link = LaunchLink::none;
  std::uint32_t launch_thread = 0;    // thread of the launch (runtime event, op, or flow start)
  Nanoseconds launch_ts_ns = 0;       // start of the launch; meaningful unless link == none
};

// One entry per device event, in file order. The op is PyTorch's choice: the innermost enclosing
// event of kind cpu_op (user annotations and runtime calls are skipped, as Kineto's External id
// stack holds ops only and record_function ranges use a separate user correlation stack).
// Through correlation, the op encloses the runtime event (a runtime event with no enclosing op
// leaves the device time unattributed, its step still the runtime call's); through a flow, the op
// holds the flow's start instant on the start's thread.
std::vector<DeviceLaunch> attribute_device_events(const RawTrace& trace, const CpuNesting& nesting);

} // namespace neuron_gate
