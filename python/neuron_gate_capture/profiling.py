"""The profiled steps: torch.profiler.profile with a fixed schedule, the device synchronized before
each step ends, one trace exported per cycle (docs/NEURON-FORMATS.md section 1.1)."""

import importlib
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from .device import Device
from .errors import CaptureError


@dataclass(frozen=True)
class Schedule:
    """torch.profiler.schedule(skip_first, wait, warmup, active, repeat): per cycle `wait` steps
    idle, `warmup` steps traced and thrown away, `active` steps recorded; `repeat` cycles, each
    exported as one trace. All non-negative integers; active and repeat at least 1 (repeat 0 would
    mean "until the loop ends" in torch, which a fixed capture must not depend on)."""

    wait: int = 1
    warmup: int = 1
    active: int = 3
    repeat: int = 3
    skip_first: int = 0

    def check(self) -> None:
        """Raises CaptureError naming the first value out of range."""
        for name in ("wait", "warmup", "active", "repeat", "skip_first"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise CaptureError("schedule %s must be a non-negative integer, not %r" % (name, value))
        if self.active < 1 or self.repeat < 1:
            raise CaptureError("schedule active and repeat must be at least 1")

    def total_steps(self) -> int:
        """Steps the loop runs: skip_first + (wait + warmup + active) * repeat."""
        return self.skip_first + (self.wait + self.warmup + self.active) * self.repeat

    def as_manifest(self) -> Dict[str, int]:
        """The manifest's "schedule" object."""
        return {"skip_first": self.skip_first, "wait": self.wait, "warmup": self.warmup,
                "active": self.active, "repeat": self.repeat}


@dataclass(frozen=True)
class ProfilerOptions:
    """The torch.profiler.profile flags recorded in the manifest's "profiler" object."""

    record_shapes: bool = True
    with_stack: bool = False
    profile_memory: bool = False
    with_flops: bool = False


def chrome_trace_exporter(folder: str) -> Callable[[Any, int], str]:
    """An exporter writing cycle k's trace to <folder>/trace_cycle<k>.json with prof.export_chrome_trace
    (the Kineto trace, or the legacy autograd-profiler trace on a torch without Kineto)."""

    def export(prof: Any, cycle: int) -> str:
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "trace_cycle%d.json" % cycle)
        prof.export_chrome_trace(path)
        return path

    return export


def profile_steps(
    step: Callable[..., Any],
    inputs: Dict[str, Any],
    device: Device,
    schedule: Schedule,
    options: ProfilerOptions,
    export: Callable[[Any, int], Optional[str]],
    experimental_config: Any = None,
    after_cycle: Optional[Callable[[], None]] = None,
) -> int:
    """Runs schedule.total_steps() calls of step(**inputs) under torch.profiler.profile.

    Each iteration: step, device.synchronize() (so the step's device work ends inside its
    ProfilerStep window), prof.step(). on_trace_ready calls export(prof, cycle) once per cycle (cycle
    counted from 0). experimental_config (a NeuronConfig) is passed only when given. after_cycle, when
    given, is called right after each export, inside on_trace_ready: the profiler has stopped tracing
    (stop_trace comes before on_trace_ready) and the next cycle's tracing has not begun (prepare_trace
    comes after), so work done there is not profiled; the capture takes its timing bursts there. Returns
    the number of cycles exported; raises CaptureError when it is not schedule.repeat.
    """
    torch = importlib.import_module("torch")
    cycles: List[Optional[str]] = []

    def on_trace_ready(prof: Any) -> None:
        cycles.append(export(prof, len(cycles)))
        if after_cycle is not None:
            after_cycle()

    kwargs: Dict[str, Any] = {
        "activities": list(device.activities),
        "schedule": torch.profiler.schedule(wait=schedule.wait, warmup=schedule.warmup, active=schedule.active,
                                            repeat=schedule.repeat, skip_first=schedule.skip_first),
        "on_trace_ready": on_trace_ready,
        "record_shapes": options.record_shapes,
        "with_stack": options.with_stack,
        "profile_memory": options.profile_memory,
        "with_flops": options.with_flops,
    }
    if experimental_config is not None:
        kwargs["experimental_config"] = experimental_config
    with torch.profiler.profile(**kwargs) as prof:
        for _ in range(schedule.total_steps()):
            step(**inputs)
            device.synchronize()
            prof.step()
    if len(cycles) != schedule.repeat:
        raise CaptureError("the profiler exported %d traces, expected %d (one per cycle)" % (len(cycles), schedule.repeat))
    return len(cycles)
