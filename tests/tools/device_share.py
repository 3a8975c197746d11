#!/usr/bin/python3
"""Independent reference for device-time attribution per step (issue 12 item 3).

For each trace given, prints per step (ProfilerStep#N window, or "whole trace" without steps) the
device time (sum of the durations of the device events whose step it is) and the part attributed to
an op, in integer ns, plus the share attributed. Written from the rules in docs/user-guide.md "What is read"
(device time), not from the C++ code:

- device events: categories kernel, gpu_memcpy, gpu_memset, Kernel, Memcpy, Memset (CUDA/ROCm; 2021
  names), mtia_ccp_events (MTIA), and uncategorised events of the process named "Ascend Hardware"
  labelled NPU (torch_npu).
- launch point of a device event: the runtime call with the same args.correlation; else the start
  of a flow (any category: ac2g, async, async_npu, ...) whose finish is bound to the event (same
  pid/tid, finish ts == event start; the first start of that id holding an op, else the first); else
  the cpu_op with the same non-zero External id.
- op: the innermost cpu_op enclosing the runtime call; else the innermost cpu_op holding a flow
  start; else the External-id op; else the innermost enclosing user annotation (not a ProfilerStep)
  at the launch point on the launching thread; else none (unattributed).
- step: the ProfilerStep window of the launch point's process holding the launch instant; without a
  launch point, the latest-starting window of any process holding the event's start.

usage: device_share.py TRACE... ; prints JSON {file name: [{"step", "device_ns", "attributed_ns",
"share"}]}. Standard library only; times re-read from the JSON text as Decimal (exact ns).
"""
import gzip
import json
import os
import sys
from bisect import bisect_right
from decimal import Decimal, ROUND_HALF_UP

CPU_OP = {"cpu_op", "Operator"}
ANNOTATION = {"user_annotation"}
RUNTIME = {"cuda_runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver", "xpu_runtime",
           "xpu_driver", "mtia_runtime", "Runtime"}
DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "mtia_ccp_events"}
FILTERED = {"profiler::_record_function_enter", "profiler::_record_function_enter_new",
            "profiler::_record_function_exit", "aten::is_leaf", "aten::output_nr", "aten::_version",
            "[memory]", "[OutOfMemory]"}


def ns(value):
    return int((Decimal(str(value)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    doc = json.loads(raw.decode("utf-8-sig"), parse_float=Decimal)
    return doc if isinstance(doc, list) else doc["traceEvents"]


def shares(path):
    events = load(path)
    any_cat = any("cat" in e for e in events if e.get("ph") == "X")
    name_of, label_of = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            name_of[str(e["pid"])] = e["args"].get("name")
        if e.get("ph") == "M" and e.get("name") == "process_labels":
            label_of[str(e["pid"])] = e["args"].get("labels")
    cpu, device = [], []
    for order, e in enumerate(events):
        if e.get("ph") != "X" or "name" not in e or "ts" not in e or "dur" not in e:
            continue
        dur = ns(e["dur"])
        if dur < 0:
            continue
        cat = e.get("cat", "")
        pid, tid = str(e["pid"]), str(e["tid"])
        args = e.get("args") or {}
        rec = {"name": e["name"], "pid": pid, "tid": tid, "start": ns(e["ts"]), "dur": dur, "order": order,
               "corr": args.get("correlation"), "ext": args.get("External id", args.get("external id", 0))}
        rec["end"] = rec["start"] + dur
        if cat in DEVICE or (cat == "" and any_cat and label_of.get(pid) == "NPU"
                             and name_of.get(pid) == "Ascend Hardware"):
            device.append(rec)
            continue
        kind = ("op" if cat in CPU_OP or (cat == "" and not any_cat) else
                "annotation" if cat in ANNOTATION else "runtime" if cat in RUNTIME else None)
        if kind is None or e["name"] in FILTERED:
            continue
        rec["kind"] = kind
        cpu.append(rec)

    # Parents per thread: sorted by (start, -end, file order); the stack top is the parent unless the
    # event starts at/after its end or ends after it.
    by_thread = {}
    for rec in cpu:
        by_thread.setdefault((rec["pid"], rec["tid"]), []).append(rec)
    for lst in by_thread.values():
        lst.sort(key=lambda r: (r["start"], -r["end"], r["order"]))
        stack = []
        for rec in lst:
            while stack and (rec["start"] >= stack[-1]["end"] or rec["end"] > stack[-1]["end"]):
                stack.pop()
            rec["parent"] = stack[-1] if stack else None
            stack.append(rec)

    def is_step(rec):
        return rec["name"].startswith("ProfilerStep#")

    def up(rec, want):
        while rec is not None and not want(rec):
            rec = rec["parent"]
        return rec

    starts_of = {key: [r["start"] for r in lst] for key, lst in by_thread.items()}

    def at(pid, tid, ts, want):
        # innermost event of the thread holding ts ([start, end]) that satisfies want: the last event
        # starting at or before ts, then up its parents
        lst = by_thread.get((pid, tid), [])
        i = bisect_right(starts_of.get((pid, tid), []), ts) - 1
        rec = lst[i] if i >= 0 else None
        while rec is not None and not (rec["start"] <= ts <= rec["end"] and want(rec)):
            rec = rec["parent"]
        return rec

    runtime_by_corr, op_by_ext = {}, {}
    for rec in cpu:
        if rec["kind"] == "runtime" and rec["corr"] is not None:
            runtime_by_corr.setdefault(rec["corr"], rec)
        if rec["kind"] == "op" and rec["ext"]:
            op_by_ext.setdefault(rec["ext"], rec)
    starts, finishes = {}, {}
    for e in events:
        if e.get("ph") in ("s", "f") and "id" in e and "ts" in e:
            key = (e.get("cat", ""), str(e["id"]))
            point = (str(e["pid"]), str(e["tid"]), ns(e["ts"]))
            if e["ph"] == "s":
                starts.setdefault(key, []).append(point)
            else:
                finishes.setdefault(point, []).append(key)

    is_op = lambda r: r["kind"] == "op"
    is_annotation = lambda r: r["kind"] == "annotation" and not is_step(r)
    steps = sorted((r for r in cpu if is_step(r) and r["kind"] in ("op", "annotation")),
                   key=lambda r: (r["start"], r["order"]))
    result = [{"step": s["name"], "device_ns": 0, "attributed_ns": 0} for s in steps] or \
             [{"step": "whole trace", "device_ns": 0, "attributed_ns": 0}]

    def step_index(pid, ts):
        best = None
        for i, s in enumerate(steps):
            if (pid is None or s["pid"] == pid) and s["start"] <= ts < s["end"]:
                best = i
        return best

    for dev in device:
        launch, op = None, None
        runtime = runtime_by_corr.get(dev["corr"]) if dev["corr"] is not None else None
        if runtime is not None:
            launch = (runtime["pid"], runtime["tid"], runtime["start"])
            op = up(runtime, is_op)
        if op is None:
            for key in finishes.get((dev["pid"], dev["tid"], dev["start"]), []):
                for point in starts.get(key, []):
                    holder = at(*point, is_op)
                    if launch is None:
                        launch = point
                    if holder is not None:
                        op, launch = holder, point
                        break
                if op is not None:
                    break
        if op is None and dev["ext"] and dev["ext"] in op_by_ext:
            op = op_by_ext[dev["ext"]]
            if launch is None:
                launch = (op["pid"], op["tid"], op["start"])
        if op is None and launch is not None:
            op = at(*launch, is_annotation)
        if steps:
            index = step_index(launch[0], launch[2]) if launch is not None else step_index(None, dev["start"])
            if index is None:
                continue  # outside every step
        else:
            index = 0
        result[index]["device_ns"] += dev["dur"]
        if op is not None:
            result[index]["attributed_ns"] += dev["dur"]
    for row in result:
        row["share"] = round(row["attributed_ns"] / row["device_ns"], 6) if row["device_ns"] else None
    return result


if __name__ == "__main__":
    out = {os.path.basename(path): shares(path) for path in sys.argv[1:]}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
