#!/usr/bin/env python3
"""Per-op medians of a trace over its full steps, computed independently of neuron-gate (issue 13).

  full_step_medians.py TRACE [--check NEURON_GATE]

Runs tests/tools/trace_expected.py (the plain-Python reference reader: PyTorch's self-time nesting,
device time by launch) on TRACE, keeps the steps that hold at least one op besides the ProfilerStep itself
(a last step cut off when the profiler stopped holds none: the AMD trace H02's ProfilerStep#2), and prints
per op (ProfilerStep* left out, as the default rules ignore it) the median over those steps of self CPU
and device time in µs, an op absent from a step counting 0, with the medians over all steps beside them.

--check: runs `NEURON_GATE compare TRACE TRACE --json` and fails unless every self CPU and device metric's
base median equals the full-step median (to 1e-6 µs), the class totals (`all ops`, issue 12 item 2) equal
the median of every op's time but the runtime calls' summed per step, the runtime calls' self CPU metrics
(named from the trace's runtime categories) and only they are in the family "runtime calls", every op is there, and the base side lists one
cut_off_step data problem. Standard library only.
"""
import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
# Runtime call categories (NEURON-FORMATS.md 2.5): a family of their own, outside the class totals (issue 38).
RUNTIME = {"cuda_runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver", "xpu_runtime", "xpu_driver",
           "mtia_runtime", "Runtime"}


def runtime_calls(trace):
    """Names of the trace's runtime calls, read from its categories."""
    with (gzip.open if trace.endswith(".gz") else open)(trace, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    return {e["name"] for e in events if e.get("ph") == "X" and e.get("cat") in RUNTIME}


def reference(trace):
    out = subprocess.run([sys.executable, os.path.join(HERE, "trace_expected.py"), trace],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def medians(steps):
    ops = sorted({key for step in steps for key in step["ops"] if key != "ProfilerStep*"})
    result = {}
    for op in ops:
        values = [step["ops"].get(op, [0, 0, 0]) for step in steps]
        result[op] = {"self_cpu_us": statistics.median(v[0] for v in values) / 1000.0,
                      "device_us": statistics.median(v[2] for v in values) / 1000.0}
    return result


def class_totals(steps, runtime):
    """The class totals (`all ops`): every op's time but the runtime calls' summed per step, then the median."""
    def total(step, index):
        return sum(v[index] for k, v in step["ops"].items() if k != "ProfilerStep*" and k not in runtime)
    return {"self_cpu_us": statistics.median(total(s, 0) for s in steps) / 1000.0,
            "device_us": statistics.median(total(s, 2) for s in steps) / 1000.0}


def check(binary, trace, full, totals, runtime):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "r.json")
        run = subprocess.run([binary, "compare", trace, trace, "--no-git", "--quiet", "--json", report],
                             capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"FAIL: compare exited {run.returncode}: {run.stderr}")
        with open(report, encoding="utf-8") as f:
            doc = json.load(f)
    failures = []
    seen = set()
    for metric in doc["metrics"]:
        key = {"self_cpu": "self_cpu_us", "device": "device_us"}.get(metric["class"])
        if key is None or metric["name"].startswith("device time not attributed"):
            continue
        if metric.get("scope") == "class total":
            want = totals[key]
        else:
            seen.add(metric["name"])
            want = full.get(metric["name"], {}).get(key)
            if (metric["family"] == "runtime calls") != (metric["class"] == "self_cpu" and metric["name"] in runtime):
                failures.append(f"{metric['name']} {metric['class']}: family {metric['family']}")
        got = metric["base"]["median"]
        if want is None or abs(got - want) > 1e-6:
            failures.append(f"{metric['name']} {metric['class']}: neuron-gate {got}, expected {want}")
    missing = sorted(set(full) - seen)
    if missing:
        failures.append(f"ops missing from the report: {missing}")
    cut = [p for p in doc["sides"]["base"]["data_problems"] if p["kind"] == "cut_off_step"]
    if len(cut) != 1 or cut[0]["count"] != 1:
        failures.append(f"expected one cut_off_step data problem, got {cut}")
    if failures:
        sys.exit("FAIL:\n" + "\n".join(failures))
    print(f"OK: {len(seen)} ops, medians over the full steps")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("trace")
    parser.add_argument("--check", metavar="NEURON_GATE")
    args = parser.parse_args()
    steps = reference(args.trace)["steps"]
    full_steps = [s for s in steps if any(k != "ProfilerStep*" for k in s["ops"])]
    full = medians(full_steps)
    if args.check:
        runtime = runtime_calls(args.trace)
        check(args.check, args.trace, full, class_totals(full_steps, runtime), runtime)
        return
    every = medians(steps)
    print(json.dumps({"full_steps": [s["name"] for s in full_steps], "all_steps": [s["name"] for s in steps],
                      "ops": {op: {"full": full[op], "all": every.get(op)} for op in full}}, indent=1))


if __name__ == "__main__":
    main()
