#pragma once
// Whether device activity was captured on a side, whatever its traces hold (issue 37 item 3): TorchNeuron's
// trace.json can hold CPU events only while the device's time is in NTFF files beside it
// (docs/NEURON-FORMATS.md section 2.7), so "no device time" alone does not mean the device did nothing.

#include "profile/read_side.hpp"

#include <string>

namespace neuron_gate {

// The first sign on `side` that device activity was captured, as a phrase for reports; "" when none:
//   "manifest profiler.activities CPU,PrivateUse1"  a device activity (anything but CPU) requested
//   "manifest neuron_config"                        a Neuron profiling configuration recorded
//   "2 NTFF files"                                  raw NeuronCore traces in the capture folders
//   "privateuse1_runtime events in the traces"      the PrivateUse1 backend's runtime or driver calls
std::string device_capture_sign(const SideSamples& side);

// The side's device time is unknown: launches lost their device events (ScreenedTime::device_time_lost),
// or device activity was captured (device_capture_sign) while the side holds no device time — none kept,
// none excluded by the screen, and no device summary end-to-end metric (EndToEndOrigin::device_summary).
bool device_time_unknown(const SideSamples& side);

}  // namespace neuron_gate
