#!/usr/bin/env python3
"""Writes the event-screen fixtures of issue 13 (made for this project; tests/test_cli_screen.cpp).

  python3 tests/data/bad/screen/make_fixtures.py   (rewrites the folders beside this script)

Every side has 3 runs (folders) of one Kineto trace each, 6 ProfilerSteps of 1 ms per trace. A step holds
aten::mm (100 µs) launching the kernel `gemm` (300 µs on the device) and aten::add (50 µs) launching
`add_k` (40 µs), with a few µs of deterministic jitter. `base/` is clean; each other folder is a head
with one class of fault (README.md beside this script says which and what neuron-gate must do). Times
are absolute µs, as Kineto writes them.
"""
import json
import os
import random
import shutil

T0 = 1_700_000_000_000_000  # µs
STEP_US = 1000
HERE = os.path.dirname(os.path.abspath(__file__))


def trace(run, fault):
    rnd = random.Random(f"{fault}-{run}")
    neuron = fault.startswith("nrt-")  # TorchNeuron's names: privateuse1_runtime nrt_execute, no flow arrows
    events = [{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler",
               "ts": T0 - 10, "dur": 6 * STEP_US + 20}]
    corr = 100
    steps = 7 if fault in ("cut-off-step", "cut-off-step-quarter") else 6
    for s in range(steps):
        t = T0 + s * STEP_US
        if fault == "cut-off-step" and s == 6:  # the profiler stopped right after this step began
            events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": 1, "tid": 1,
                           "ts": t, "dur": 20, "args": {"External id": 9000 + s}})
            continue
        if fault == "cut-off-step-quarter" and s == 6:  # stopped during aten::mm: 1 of a step's 4 CPU events
            events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": 1, "tid": 1,
                           "ts": t, "dur": 30, "args": {"External id": 9000 + s}})
            events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": t + 10,
                           "dur": 15, "args": {"External id": 8000 + s}})
            continue
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{s + 1}", "pid": 1, "tid": 1,
                       "ts": t, "dur": STEP_US - 10, "args": {"External id": 9000 + s}})
        for op, kernel, start, dur, kdur in (("aten::mm", "gemm", 10, 100, 300), ("aten::add", "add_k", 200, 50, 40)):
            corr += 1
            jitter = rnd.randint(0, 4)
            slow = 3 if fault.endswith("slow-launch") else 0  # the launch call 30% slower, its op's self CPU kept
            events.append({"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": t + start,
                           "dur": dur + jitter + slow, "args": {"External id": corr}})
            launch = {"ph": "X", "cat": "privateuse1_runtime" if neuron else "cuda_runtime",
                      "name": "nrt_execute" if neuron else "cudaLaunchKernel", "pid": 1, "tid": 1,
                      "ts": t + start + 5, "dur": 10 + slow, "args": {"correlation": corr, "External id": corr}}
            events.append(launch)
            if not neuron:  # Kineto's ac2g arrow from the launch to its kernel
                events.append({"ph": "s", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": 1, "tid": 1,
                               "ts": t + start + 5})
            stream = 7 if kernel == "gemm" else 8  # gemm runs past add_k's start: on one stream they would overlap
            if fault == "overlap-shared" and kernel == "add_k" and s == 2:
                stream = 7  # on gemm's stream, starting before gemm ended (issue 38 item 9)
            k = {"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": stream, "ts": t + start + 20,
                 "dur": kdur + rnd.randint(0, 3), "args": {"correlation": corr, "External id": corr, "stream": stream}}
            if fault == "device-time-lost":
                continue  # no kernel reached the trace (no synchronize before export)
            if fault == "device-events-missing" and kernel == "gemm" and s in (1, 4):
                continue  # 2 of 6 gemm kernels lost; launch and flow start remain (issue 38 item 4)
            if fault == "nrt-kernels-missing" and kernel == "gemm":
                continue  # every gemm lost while aten::mm and its nrt_execute remain (issue 38 item 1)
            if fault == "device-out-of-range" and kernel == "gemm" and s == 1:
                k["ts"] = 0  # stamped at 0
            if fault == "device-out-of-range" and kernel == "gemm" and s == 3:
                k["ts"] = T0 + 86_400_000_000  # a day after the trace
            if fault == "zero-placeholders" and kernel == "gemm" and s in (1, 2, 3, 4):
                k["ts"], k["dur"] = 0, 0  # a placeholder: stamped at 0 with no duration (issue 38 item 2)
            if fault == "longer-than-step" and kernel == "gemm" and s == 2:
                k["dur"] = 2_000_000  # a 2 s kernel in a 1 ms step
            if fault == "negative-durations" and kernel == "gemm" and s == 1:
                k["dur"] = -1  # never finished
            if fault == "negative-durations" and kernel == "gemm" and s == 4:
                k["dur"] = -250  # its end timestamp was missing
            if fault == "duplicate-one-op" and kernel == "add_k":
                k["dur"] *= 2  # a real 2x regression of a clean op beside the faulty one
            events.append(k)
            if not neuron:
                events.append({"ph": "f", "bp": "e", "cat": "ac2g", "name": "ac2g", "id": corr, "pid": 0,
                               "tid": stream, "ts": k["ts"]})
            if fault == "overlap-shared" and kernel == "gemm" and s == 3:  # a second kernel of one launch
                events.append(dict(k, name="gemm_tail", ts=k["ts"] + k["dur"] + 1, dur=5))
            if fault == "duplicate" or (fault == "duplicate-one-op" and kernel == "gemm"):
                events.append(dict(k))  # the same event written twice
    return {"schemaVersion": 1, "traceEvents": events}


def main():
    for fault in ("base", "clean", "device-out-of-range", "longer-than-step", "duplicate", "negative-durations",
                  "cut-off-step", "cut-off-step-quarter", "device-time-lost", "duplicate-one-op", "zero-placeholders",
                  "overlap-shared", "device-events-missing", "nrt-base", "nrt-kernels-missing",
                  "slow-launch", "nrt-slow-launch"):
        folder = os.path.join(HERE, fault)
        shutil.rmtree(folder, ignore_errors=True)
        for run in (1, 2, 3):
            os.makedirs(os.path.join(folder, f"run-0{run}"))
            with open(os.path.join(folder, f"run-0{run}", "trace.pt.trace.json"), "w", encoding="utf-8") as f:
                json.dump(trace(run, fault), f, separators=(",", ":"))
                f.write("\n")


if __name__ == "__main__":
    main()
