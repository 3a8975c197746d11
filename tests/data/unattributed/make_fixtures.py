#!/usr/bin/env python3
"""Writes the unattributed-device-time fixtures (made for this project; tests/test_cli_unattributed.cpp).

  python3 tests/data/unattributed/make_fixtures.py   (rewrites the folders beside this script)

Every side has 3 runs (folders) of one Kineto trace each, 6 ProfilerSteps of 1 ms per trace. A step holds
aten::mm (100 µs) launching `gemm` (300 µs on the device, linked by correlation) and a kernel `nccl_k` on
another stream that no rule attributes to an op (no correlation, no External id, no flow): it is the row
`device time not attributed to an op (kernel)`. A few µs of deterministic jitter. README.md says what
each head changes and what neuron-gate must do.
"""
import json
import os
import random
import shutil

T0 = 1_700_000_000_000_000  # µs
STEP_US = 1000
HERE = os.path.dirname(os.path.abspath(__file__))

# side -> (unattributed kernel µs per step, gemm attributed to aten::mm)
SIDES = {
    "base": (200, True),
    "doubled": (400, True),         # unattributed time doubles: the device total 500 -> 700 µs
    "improved": (100, True),        # unattributed time halves: the device total 500 -> 400 µs
    "base-small": (10, True),       # base-small -> small: 10 -> 20 µs, the device total 310 -> 320 µs (3%)
    "small": (20, True),
    "attribution-lost": (200, False),  # gemm loses its launch link: aten::mm's device time "vanishes"
}


def trace(run, side):
    unattributed_us, linked = SIDES[side]
    rnd = random.Random(f"{side}-{run}")
    events = [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
               "ts": T0 - 10, "dur": 6 * STEP_US + 20}]
    corr = 100
    for s in range(6):
        t = T0 + s * STEP_US
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": 1, "tid": 1,
                       "ts": t, "dur": STEP_US - 10, "args": {"External id": 9000 + s}})
        corr += 1
        events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t + 10,
                       "dur": 100 + rnd.randint(0, 4), "args": {"External id": corr}})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": t + 15, "dur": 10, "args": {"correlation": corr, "External id": corr}})
        gemm = {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t + 30,
                "dur": 300 + rnd.randint(0, 3), "args": {"stream": 7}}
        if linked:
            gemm["args"].update({"correlation": corr, "External id": corr})
        events.append(gemm)
        events.append({"ph": "X", "cat": "kernel", "name": "nccl_k", "pid": 0, "tid": 9, "ts": t + 400,
                       "dur": unattributed_us + rnd.randint(0, 2), "args": {"stream": 9}})
    return {"schemaVersion": 1, "traceEvents": events}


def main():
    for side in SIDES:
        folder = os.path.join(HERE, side)
        shutil.rmtree(folder, ignore_errors=True)
        for run in (1, 2, 3):
            os.makedirs(os.path.join(folder, f"run-0{run}"))
            with open(os.path.join(folder, f"run-0{run}", "trace.pt.trace.json"), "w", encoding="utf-8") as f:
                json.dump(trace(run, side), f, separators=(",", ":"))
                f.write("\n")


if __name__ == "__main__":
    main()
