"""End-to-end timing of the un-profiled step, written as neuron-gate's e2e.json (schema
"neuron-gate.e2e/1", docs/DESIGN.md section 1): wall-clock latency and the thread CPU time of every
sample, taken in bursts spread over the run (docs/capture.md "Timing")."""

import gc
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from .errors import CaptureError

GATES = ("latency", "thread_cpu_time")


@dataclass(frozen=True)
class Timing:
    """How the un-profiled step is timed.

    warmup: calls made and thrown away first (compilation, caches, NEFF loading).
    repetitions: samples kept, one per repetition (at least 2; the gate's tests need more, 30+), spread
    over the run in bursts (see Sampler).
    calls_per_sample: calls timed together in one sample, whose mean is the sample (for steps too
    short for the clock; 1 otherwise).
    gate: the end-to-end measure that decides: "latency" (wall clock, the default: it holds the time the
    host waits for the device) or "thread_cpu_time" (CPU time of the calling thread: steadier on a loaded
    machine, but blind to device time and to intra-op worker threads, so only for device "cpu" with one
    intra-op thread). The other is written with "gates": false: measured and shown, never deciding.
    """

    warmup: int = 10
    repetitions: int = 50
    calls_per_sample: int = 1
    gate: str = "latency"

    def check(self) -> None:
        """Raises CaptureError naming the first value out of range."""
        for name, least in (("warmup", 0), ("repetitions", 2), ("calls_per_sample", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise CaptureError("timing %s must be an integer of at least %d, not %r" % (name, least, value))
        if self.gate not in GATES:
            raise CaptureError("timing gate must be one of %s, not %r" % (", ".join(GATES), self.gate))


@dataclass
class Timed:
    """What is timed: step(**inputs), synchronized with `synchronize`."""

    step: Callable[..., Any]
    inputs: Dict[str, Any]
    synchronize: Callable[[], None]


def burst_sizes(repetitions: int, bursts: int) -> List[int]:
    """`repetitions` samples split over `bursts` bursts as evenly as can be, the larger ones first;
    [50 over 4] -> [13, 13, 12, 12]. Bursts beyond the repetitions get 0."""
    bursts = max(1, bursts)
    return [repetitions // bursts + (1 if index < repetitions % bursts else 0) for index in range(bursts)]


@dataclass
class Sampler:
    """Takes the un-profiled samples of every variant in bursts spread over the run.

    warm_up() makes timing.warmup calls of each variant (synchronized), thrown away. burst() takes the
    next burst: one untimed call of each variant first (except in the first burst, which follows the
    warm-up), then rounds in which every variant gives one sample; the order alternates A B, B A, ...
    across all bursts, so that drift of the machine falls on every variant alike. A sample is: synchronize,
    read time.perf_counter_ns and time.thread_time_ns, calls_per_sample calls, synchronize, read both
    again; latency and thread CPU time are the differences / calls_per_sample, in ms. The garbage
    collector runs before each burst and is off during it (as timeit does).
    """

    variants: Sequence[Timed]
    timing: Timing
    bursts: int = 1
    latency: List[List[float]] = field(default_factory=list)
    thread_cpu: List[List[float]] = field(default_factory=list)
    taken: int = 0
    rounds: int = 0

    def __post_init__(self) -> None:
        self.timing.check()
        self.sizes = burst_sizes(self.timing.repetitions, self.bursts)
        self.latency = [[] for _ in self.variants]
        self.thread_cpu = [[] for _ in self.variants]

    def bursts_made(self) -> int:
        """Bursts that hold samples: min(bursts, repetitions)."""
        return sum(1 for size in self.sizes if size > 0)

    def warm_up(self) -> None:
        for timed in self.variants:
            for _ in range(self.timing.warmup):
                timed.step(**timed.inputs)
            timed.synchronize()

    def burst(self) -> None:
        """Takes the next burst (nothing once all bursts were taken)."""
        if self.taken >= len(self.sizes):
            return
        size, self.taken = self.sizes[self.taken], self.taken + 1
        if size == 0:
            return
        if self.taken > 1:
            for timed in self.variants:
                timed.step(**timed.inputs)
                timed.synchronize()
        gc.collect()
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            for _ in range(size):
                order = range(len(self.variants)) if self.rounds % 2 == 0 else reversed(range(len(self.variants)))
                self.rounds += 1
                for index in order:
                    self._sample(index)
        finally:
            if was_enabled:
                gc.enable()

    def _sample(self, index: int) -> None:
        timed, calls = self.variants[index], self.timing.calls_per_sample
        timed.synchronize()
        wall, cpu = time.perf_counter_ns(), time.thread_time_ns()
        for _ in range(calls):
            timed.step(**timed.inputs)
        timed.synchronize()
        cpu, wall = time.thread_time_ns() - cpu, time.perf_counter_ns() - wall
        self.latency[index].append(max(wall, 1) / calls / 1e6)
        self.thread_cpu[index].append(max(cpu, 1) / calls / 1e6)


def time_steps(variants: Sequence[Timed], timing: Timing) -> List[List[float]]:
    """Latency samples in ms of each variant, variants[i] -> result[i], in one burst after the warm-up
    (see Sampler, which also gives thread CPU time and spreads bursts)."""
    sampler = Sampler(variants, timing)
    sampler.warm_up()
    sampler.burst()
    return sampler.latency


def _rounded(values: Sequence[float], digits: int) -> List[float]:
    return [float("%.*g" % (digits, v)) for v in values]


def e2e_document(latency_ms: Sequence[float], work_per_step: Optional[float] = None,
                 work_unit: str = "samples", thread_cpu_ms: Optional[Sequence[float]] = None,
                 gate: str = "latency") -> Dict[str, Any]:
    """The e2e.json document: metric "latency" (ms, lower is better); when work_per_step is given,
    "throughput" (<work_unit>/s, higher is better; each sample work_per_step / latency in s); when
    thread_cpu_ms is given, "thread_cpu_time" (ms, lower is better). The metrics that `gate` does not
    name carry "gates": false (latency and throughput go together)."""
    if gate not in GATES:
        raise CaptureError("timing gate must be one of %s, not %r" % (", ".join(GATES), gate))
    if gate == "thread_cpu_time" and thread_cpu_ms is None:
        raise CaptureError("gating on thread_cpu_time needs its samples")
    wall = {"gates": False} if gate != "latency" else {}
    metrics: List[Dict[str, Any]] = [
        dict({"name": "latency", "unit": "ms", "better": "lower"}, **wall, samples=_rounded(latency_ms, 9))
    ]
    if work_per_step is not None:
        if not (work_per_step > 0):
            raise CaptureError("work per step must be positive, not %r" % (work_per_step,))
        if not work_unit or "/" in work_unit:
            raise CaptureError("work unit must be a plain name such as \"samples\" or \"tokens\", not %r" % (work_unit,))
        metrics.append(dict({"name": "throughput", "unit": work_unit + "/s", "better": "higher"}, **wall,
                            samples=_rounded([work_per_step / (v / 1e3) for v in latency_ms], 6)))
    if thread_cpu_ms is not None:
        cpu = {"gates": False} if gate != "thread_cpu_time" else {}
        metrics.append(dict({"name": "thread_cpu_time", "unit": "ms", "better": "lower"}, **cpu,
                            samples=_rounded(thread_cpu_ms, 9)))
    return {"schema": "neuron-gate.e2e/1", "metrics": metrics}


def write_json(path: str, document: Dict[str, Any]) -> None:
    """Writes `document` as indented JSON, whole (temporary file, then rename)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = path + ".tmp%d" % os.getpid()
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
    os.replace(temporary, path)
