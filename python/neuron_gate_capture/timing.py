"""End-to-end timing of the un-profiled step, written as neuron-gate's e2e.json (schema
"neuron-gate.e2e/1", docs/DESIGN.md section 1)."""

import gc
import json
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

from .errors import CaptureError


@dataclass(frozen=True)
class Timing:
    """How the un-profiled step is timed.

    warmup: calls made and thrown away first (compilation, caches, NEFF loading).
    repetitions: samples kept, one per repetition (at least 2; the gate's tests need more, 30+).
    calls_per_sample: calls timed together in one sample, whose mean is the sample (for steps too
    short for the clock; 1 otherwise).
    """

    warmup: int = 10
    repetitions: int = 50
    calls_per_sample: int = 1

    def check(self) -> None:
        """Raises CaptureError naming the first value out of range."""
        for name, least in (("warmup", 0), ("repetitions", 2), ("calls_per_sample", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise CaptureError("timing %s must be an integer of at least %d, not %r" % (name, least, value))


@dataclass
class Timed:
    """What is timed: step(**inputs), synchronized with `synchronize`."""

    step: Callable[..., Any]
    inputs: Dict[str, Any]
    synchronize: Callable[[], None]


def time_steps(variants: Sequence[Timed], timing: Timing) -> List[List[float]]:
    """Latency samples in ms of each variant, variants[i] -> result[i].

    Warm-up calls first (variant by variant, each synchronized). Then `repetitions` rounds; in each
    round every variant gives one sample: synchronize, start the clock (time.perf_counter_ns), run
    calls_per_sample calls, synchronize, stop; the sample is elapsed / calls_per_sample. With two or
    more variants the order alternates A B, B A, ... so that drift of the machine (clock, neighbours,
    heat) falls on every variant alike. The garbage collector is run before and disabled during the
    rounds (as timeit does), so a collection does not land in one sample.
    """
    timing.check()
    for timed in variants:
        for _ in range(timing.warmup):
            timed.step(**timed.inputs)
        timed.synchronize()
    samples: List[List[float]] = [[] for _ in variants]
    order = list(range(len(variants)))
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for round_index in range(timing.repetitions):
            for index in order if round_index % 2 == 0 else list(reversed(order)):
                timed = variants[index]
                timed.synchronize()
                start = time.perf_counter_ns()
                for _ in range(timing.calls_per_sample):
                    timed.step(**timed.inputs)
                timed.synchronize()
                elapsed = time.perf_counter_ns() - start
                samples[index].append(max(elapsed, 1) / timing.calls_per_sample / 1e6)
    finally:
        if was_enabled:
            gc.enable()
    return samples


def e2e_document(latency_ms: Sequence[float], work_per_step: Optional[float] = None,
                 work_unit: str = "samples") -> Dict[str, Any]:
    """The e2e.json document: metric "latency" (ms, lower is better) and, when work_per_step is given,
    "throughput" (<work_unit>/s, higher is better; each sample work_per_step / latency in s)."""
    metrics: List[Dict[str, Any]] = [
        {"name": "latency", "unit": "ms", "better": "lower", "samples": [float("%.9g" % v) for v in latency_ms]}
    ]
    if work_per_step is not None:
        if not (work_per_step > 0):
            raise CaptureError("work per step must be positive, not %r" % (work_per_step,))
        if not work_unit or "/" in work_unit:
            raise CaptureError("work unit must be a plain name such as \"samples\" or \"tokens\", not %r" % (work_unit,))
        metrics.append({"name": "throughput", "unit": work_unit + "/s", "better": "higher",
                        "samples": [float("%.6g" % (work_per_step / (v / 1e3))) for v in latency_ms]})
    return {"schema": "neuron-gate.e2e/1", "metrics": metrics}


def write_json(path: str, document: Dict[str, Any]) -> None:
    """Writes `document` as indented JSON, whole (temporary file, then rename)."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = path + ".tmp%d" % os.getpid()
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=1, allow_nan=False)
        out.write("\n")
    os.replace(temporary, path)
