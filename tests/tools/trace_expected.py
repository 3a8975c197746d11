#!/usr/bin/env python3
"""Independent reference for neuron-gate's trace reader (tests/test_profile_trace*.cpp).

Computes, from a Kineto / legacy trace, the numbers the C++ reader must produce, with the same
rules written out plainly (DESIGN.md section 2; PyTorch torch/autograd/profiler_util.py
_populate_cpu_children): self CPU time per op, calls, device time per launching op, per kernel,
per step.  Times are exact: decimal microsecond text -> integer ns with Decimal (never float).

usage: trace_expected.py TRACE [--by-shape]
Prints JSON: {"steps": [{"name", "start", "dur", "ops": {key: [self_ns, calls, device_ns]},
"kernels": {name: ns}, "unattributed": ns}], "outside": {...}, "problems": {...},
"attribution": {how many device events linked by correlation / External id / flow / not at all}}.
The per-op values asserted in tests/test_profile_trace_corpus.cpp come from this script, run on
tests/data/corpus/{K1,K2,K5,H02,H01,A1}; needs only the Python standard library.
"""
import argparse
import gzip
import json
import sys
from bisect import bisect_right
from decimal import Decimal, ROUND_HALF_UP

CPU_OP = {"cpu_op", "Operator"}
ANNOTATION = {"user_annotation"}
RUNTIME = {"cuda_runtime", "cuda_driver", "privateuse1_runtime", "privateuse1_driver", "xpu_runtime",
           "xpu_driver", "mtia_runtime", "Runtime"}
DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
FILTERED = {"profiler::_record_function_enter", "profiler::_record_function_enter_new",
            "profiler::_record_function_exit", "aten::is_leaf", "aten::output_nr", "aten::_version",
            "[memory]", "[OutOfMemory]"}


def to_ns(value):
    # JSON numbers are re-read from their text (parse_float=Decimal keeps it); strings likewise.
    d = Decimal(str(value)) * 1000
    return int(d.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8-sig")
    return json.loads(text, parse_float=Decimal)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("--by-shape", action="store_true")
    args = ap.parse_args()
    doc = load(args.trace)
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    any_cat = any("cat" in e for e in events if e.get("ph") == "X")
    proc_name, proc_label = {}, {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            proc_name[str(e["pid"])] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "process_labels":
            proc_label[str(e["pid"])] = e["args"]["labels"]

    problems = {"unfinished": 0, "negative": 0}
    evs = []  # dicts with kind, name, pid, tid, start, end, ...
    for order, e in enumerate(events):
        if e.get("ph") != "X":
            continue
        dur = to_ns(e["dur"])
        if dur == -1000:
            problems["unfinished"] += 1
            continue
        if dur < 0:
            problems["negative"] += 1
            continue
        cat = e.get("cat", "")
        pid, tid = str(e["pid"]), str(e["tid"])
        name = e["name"]
        if cat in CPU_OP:
            kind = "op"
        elif cat in ANNOTATION:
            kind = "annotation"
        elif cat in RUNTIME:
            kind = "runtime"
        elif cat in DEVICE:
            kind = "device"
        elif cat == "" and not any_cat:
            kind = "op"
        elif cat == "" and proc_label.get(pid) == "NPU" and proc_name.get(pid) == "Ascend Hardware":
            kind = "device"
        else:
            kind = None
        if kind in ("op", "annotation", "runtime") and name in FILTERED:
            kind = None
        if kind is None:
            continue
        a = e.get("args", {}) or {}
        ext = a.get("External id", a.get("external id", 0))
        dims = a.get("Input Dims", a.get("Input dims"))
        types = a.get("Input type")
        evs.append(dict(kind=kind, name=name, pid=pid, tid=tid, start=to_ns(e["ts"]), dur=dur,
                        end=to_ns(e["ts"]) + dur, order=order, corr=a.get("correlation"), ext=ext,
                        dims=dims, types=types, self=dur, parent=None))

    def pystr(v):
        if isinstance(v, list):
            return "[" + ", ".join(pystr(x) for x in v) + "]"
        if isinstance(v, str):
            return "'" + v + "'"
        return str(v)

    def key_of(ev):
        name = "ProfilerStep*" if ev["name"].startswith("ProfilerStep#") else ev["name"]
        if not args.by_shape or (ev["dims"] is None and ev["types"] is None):
            return name
        k = name + " " + (pystr(ev["dims"]) if ev["dims"] is not None else "[]")
        if ev["types"] is not None:
            k += " " + pystr(ev["types"])
        return k

    # Nesting per (pid, tid): sort by (start, -end), file order on ties.
    cpu = [ev for ev in evs if ev["kind"] in ("op", "annotation", "runtime")]
    threads = {}
    for ev in cpu:
        threads.setdefault((ev["pid"], ev["tid"]), []).append(ev)
    sorted_threads = {}
    for key, lst in threads.items():
        lst.sort(key=lambda ev: (ev["start"], -ev["end"], ev["order"]))
        sorted_threads[key] = lst
        stack = []
        for ev in lst:
            while stack:
                top = stack[-1]
                if ev["start"] >= top["end"] or ev["end"] > top["end"]:
                    stack.pop()
                else:
                    top["self"] -= ev["dur"]
                    ev["parent"] = top
                    break
            stack.append(ev)

    def innermost_op(ev):
        p = ev
        while p is not None and p["kind"] != "op":
            p = p["parent"]
        return p

    def op_at(pid, tid, ts):
        lst = sorted_threads.get((pid, tid), [])
        starts = [x["start"] for x in lst]
        i = bisect_right(starts, ts) - 1
        p = lst[i] if i >= 0 else None
        while p is not None and not (p["kind"] == "op" and p["start"] <= ts <= p["end"]):
            p = p["parent"]
        return p

    # Steps: ProfilerStep#N windows per process.
    steps = sorted([ev for ev in cpu if ev["name"].startswith("ProfilerStep#")],
                   key=lambda ev: (ev["start"], ev["order"]))
    def step_of(pid, ts, own=None):
        if not steps:
            return 0
        if own is not None and own in steps:
            return steps.index(own)
        best = None
        for i, s in enumerate(steps):
            if s["pid"] == pid and s["start"] <= ts < s["end"]:
                best = i
        return best

    def step_any(ts):
        best = None
        for i, s in enumerate(steps):
            if s["start"] <= ts < s["end"]:
                best = i
        return best

    out = [dict(name=s["name"], start=s["start"], dur=s["dur"], ops={}, kernels={}, unattributed=0)
           for s in steps] or [dict(name="whole trace", ops={}, kernels={}, unattributed=0)]
    outside = dict(name="outside", ops={}, kernels={}, unattributed=0)

    def slot(i):
        return outside if i is None else out[i]

    for ev in cpu:
        st = slot(step_of(ev["pid"], ev["start"], ev if ev["name"].startswith("ProfilerStep#") else None))
        v = st["ops"].setdefault(key_of(ev), [0, 0, 0])
        v[0] += ev["self"]
        v[1] += 1

    runtime_by_corr = {}
    for ev in cpu:
        if ev["kind"] == "runtime" and ev["corr"] is not None:
            runtime_by_corr.setdefault(ev["corr"], ev)
    op_by_ext = {}
    for ev in cpu:
        if ev["kind"] == "op" and ev["ext"]:
            op_by_ext.setdefault(ev["ext"], ev)
    # Flows: f bound to a device event (same pid/tid, ts inside it) -> s point -> op at that point.
    flow_s, flow_f = {}, {}
    for e in events:
        if e.get("ph") in ("s", "f"):
            k = (e.get("cat", ""), str(e["id"]))
            rec = (str(e["pid"]), str(e["tid"]), to_ns(e["ts"]))
            (flow_s if e["ph"] == "s" else flow_f).setdefault(k, []).append(rec)
    f_index = {}
    for k, lst in flow_f.items():
        for rec in lst:
            f_index.setdefault((rec[0], rec[1], rec[2]), []).append(k)

    stats = {"via_correlation": 0, "via_external_id": 0, "via_flow": 0, "unattributed": 0,
             "corr_vs_ext_disagree": 0}
    for ev in evs:
        if ev["kind"] != "device":
            continue
        op, launch = None, None
        rt = runtime_by_corr.get(ev["corr"]) if ev["corr"] is not None else None
        if rt is not None:
            op = innermost_op(rt)
            launch = (rt["pid"], rt["start"])
            stats["via_correlation"] += 1
            if ev["ext"] and ev["ext"] in op_by_ext and op is not op_by_ext[ev["ext"]]:
                stats["corr_vs_ext_disagree"] += 1
        elif ev["ext"] and ev["ext"] in op_by_ext:
            op = op_by_ext[ev["ext"]]
            launch = (op["pid"], op["start"])
            stats["via_external_id"] += 1
        else:
            for k in f_index.get((ev["pid"], ev["tid"], ev["start"]), []):
                for s in flow_s.get(k, []):
                    cand = op_at(*s)
                    if cand is not None:
                        op, launch = cand, (s[0], s[2])
                        break
                if op is not None:
                    break
            if op is not None:
                stats["via_flow"] += 1
        if op is None:
            stats["unattributed"] += 1
        st = slot(step_of(*launch)) if launch is not None else slot(step_any(ev["start"]) if steps else 0)
        st["kernels"][ev["name"]] = st["kernels"].get(ev["name"], 0) + ev["dur"]
        if op is not None:
            v = st["ops"].setdefault(key_of(op), [0, 0, 0])
            v[2] += ev["dur"]
        else:
            st["unattributed"] += ev["dur"]

    json.dump({"steps": out, "outside": outside, "problems": problems, "attribution": stats}, sys.stdout,
              indent=1, sort_keys=True, default=str)


if __name__ == "__main__":
    main()
