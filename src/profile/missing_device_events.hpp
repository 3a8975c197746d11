#pragma once
// Launches whose device events are not in the trace (issue 38 items 1 and 4), found by the trace's own
// links (correlation ids, flow arrows), never by a runtime call's name: the event screen's
// device_time_lost and device_events_missing (event_screen.hpp).

#include "profile/event_screen.hpp"

#include <string>

namespace neuron_gate {

// Screens the runtime calls of `trace` (named `path` in examples; events not yet removed by the other
// classes, RawTrace::unusable read too). A runtime call launched device work when (a) a device event carries
// its correlation id, (b) another call of the same name did (a) in this trace, or (c) it holds the start
// of a flow arrow (ac2g, async_npu, ...) that has no finish of the same id and category.
//   no device event in the trace (usable or not): every runtime call with a correlation id or (c) is counted
//     as device_time_lost and screen.time.device_time_lost is set (the device was traced, its time lost);
//   otherwise each call by (b) or (c) without a device event of its correlation (usable or not) is counted
//     as device_events_missing and gets a stand-in device event in screen.missing_device: the call's
//     correlation, External id, thread and start, category that of the trace's first device event, dur the
//     estimated time (ns) added to the problem and screen.time.excluded_device_ns: the median dur of the
//     device events launched by its op's other calls (op by External id), else by calls of its name, else
//     of all device events. A stand-in's key (name, shapes, that category) is added to trace.event_keys when new.
void screen_missing_device_events(const std::string& path, RawTrace& trace, EventScreen& screen);

}  // namespace neuron_gate
