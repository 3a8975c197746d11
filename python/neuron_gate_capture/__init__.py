"""neuron_gate_capture: profile a PyTorch step function the way neuron-gate compares it.

    import neuron_gate_capture as ngc
    ngc.capture(step, "profiles/head", {"x": x},
                settings=ngc.Settings(schedule=ngc.Schedule(wait=1, warmup=3, active=5, repeat=2),
                                      timing=ngc.Timing(warmup=10, repetitions=100), work_per_step=4))

writes profiles/head/neuron-gate.json (the run manifest), profiles/head/<run>/e2e.json (un-profiled
latency, thread CPU time and throughput) and one trace per profiler cycle. See the README section "Capturing profiles".
"""

from ._version import __version__
from .capture import MANIFEST_NAME, Result, Settings, Variant, capture, capture_variants
from .device import Device, detect_device
from .errors import CaptureError
from .profiling import ProfilerOptions, Schedule
from .timing import Timing

__all__ = ["__version__", "MANIFEST_NAME", "CaptureError", "Device", "ProfilerOptions", "Result", "Schedule",
           "Settings", "Timing", "Variant", "capture", "capture_variants", "detect_device"]
