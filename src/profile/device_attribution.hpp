#pragma once
// Device events (kernel, gpu_memcpy, gpu_memset) -> the CPU op that launched them
// (DESIGN.md section 2, NEURON-FORMATS.md section 6.6).

#include "formats/kineto_trace.hpp"
#include "profile/self_time.hpp"
#include "util/units.hpp"

#include <cstdint>
#include <vector>

namespace neuron_gate {

// How a device event's op was found (docs/user-guide.md "What is read", device time).
enum class LaunchLink : std::uint8_t {
  correlation,  // args.correlation == a runtime event's args.correlation; the op encloses that call
  flow,         // a flow arrow (ac2g, async_npu, ...) ends at the event's start; the op holds its start
  external_id,  // a cpu_op with the same non-zero External id
  enclosing,    // none of these gave an op: the innermost user annotation (not a ProfilerStep) holding the
                // launch (runtime call or flow start) on the launching thread, e.g. "nccl:all_reduce"
  none,         // no launch found at all: unattributed, in the step holding the event's start
};

// Where one device event came from.
struct DeviceLaunch {
  std::uint32_t event = k_no_event;    // the device event (index into RawTrace::events)
  std::uint32_t op = k_no_event;       // the CPU event it is attributed to, or k_no_event (unattributed)
  LaunchLink link = LaunchLink::none;  // how `op` was found; with op == k_no_event, how the launch was found
  bool attributed = false;             // op != k_no_event
  std::uint32_t launch_thread = 0;     // thread of the launch (runtime event, flow start, or op)
  Nanoseconds launch_ts_ns = 0;        // start of the launch; meaningful unless link == none
};

// One entry per device event, in file order, by the first rule that gives an op: (1) the runtime call
// with the same correlation, its innermost enclosing cpu_op (user annotations and runtime calls are
// skipped, as Kineto's External id stack holds ops only); (2) a flow ending at the event's start, the
// innermost cpu_op holding the flow's start instant on the start's thread; (3) the cpu_op with the same
// External id; (4) the innermost user annotation that is not a ProfilerStep holding the launch point
// (the runtime call of 1, else the flow start of 2) on its thread. Otherwise the event is unattributed;
// its step is still the launch point's when one was found (link correlation or flow), else the
// step holding the event's start.
std::vector<DeviceLaunch> attribute_device_events(const RawTrace& trace, const CpuNesting& nesting);

// The op (index into trace.events) each of `others` would be attributed to by the same rules, or
// k_no_event (unattributed, or not a device event). `others` are device events that are not in
// trace.events: excluded by the event screen (event_screen.hpp) or unusable (RawTrace::unusable). The
// screen names the ops whose device time it cut (issue 13 item 2: only the affected metrics).
std::vector<std::uint32_t> attribute_other_device_events(const RawTrace& trace, const CpuNesting& nesting,
                                                         const std::vector<TraceEvent>& others);

}  // namespace neuron_gate
