#!/usr/bin/env python3
"""Makes a copy of a real PyTorch trace in which one op is slower, the way a slower op would look.

  inject_slowdown.py IN OUT --op NAME --factor F [--metric self_cpu|device]

self_cpu: every event named NAME gains (F - 1) x its self time (its duration minus its direct
children's), inserted at its end: the event and its enclosing events on the same thread grow, and every
later event of that thread moves by the same amount, so nesting and order stay as the profiler would
have written them. device: every device event (kernel, memcpy, memset) launched from inside an event
named NAME (runtime correlation id, launch inside NAME on the launching thread) grows by (F - 1) x its
duration, and the later events on its stream move by the same amount.

Amounts are rounded to the trace's own resolution (whole µs when every ts and dur is an integer), so a
1.1x slowdown of a 2 µs op injects nothing, as a real one would not be seen either. Reads and writes
legacy (bare array) and Kineto (traceEvents) traces, gzip or plain by the file name. Prints the total
time injected (µs) and how many events changed. Standard library only.
"""

import argparse
import bisect
import gzip
import json
import sys

DEVICE_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "mtia_kernel"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    return doc, events


def save(path, doc):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as f:
        json.dump(doc, f)


def complete(event):
    return event.get("ph") == "X" and isinstance(event.get("ts"), (int, float)) \
        and isinstance(event.get("dur"), (int, float)) and event["dur"] >= 0


def is_device(event):
    return str(event.get("cat", "")).lower() in DEVICE_CATEGORIES


def integer_times(events):
    return all(isinstance(e.get("ts"), int) and isinstance(e.get("dur", 0), int) for e in events if complete(e))


def thread_key(event):
    return (str(event.get("pid")), str(event.get("tid")))


def parents_by_nesting(events):
    """Index of each complete event's innermost enclosing event on its thread (None at top level)."""
    parent = {}
    by_thread = {}
    for i, e in enumerate(events):
        if complete(e) and not is_device(e):
            by_thread.setdefault(thread_key(e), []).append(i)
    for indices in by_thread.values():
        indices.sort(key=lambda i: (events[i]["ts"], -events[i]["dur"]))
        stack = []
        for i in indices:
            start = events[i]["ts"]
            while stack and events[stack[-1]]["ts"] + events[stack[-1]]["dur"] <= start \
                    and not (events[stack[-1]]["dur"] == 0 and events[stack[-1]]["ts"] == start):
                stack.pop()
            while stack and events[stack[-1]]["ts"] + events[stack[-1]]["dur"] < events[i]["ts"] + events[i]["dur"]:
                stack.pop()
            parent[i] = stack[-1] if stack else None
            stack.append(i)
    return parent


def insert_times(events, insertions):
    """Applies insertions, each (lane, at, delta, grow): every event of lane starting at or after `at` moves
    by delta and the events in `grow` lengthen by delta. One pass over the events (a per-insertion pass was
    O(events x insertions): 28 s on a ResNet50 trace). `at` is in the trace's own times: applied latest
    first, one insertion never moves the start of an earlier one, so the shift of an event is the sum of
    the deltas of its lane's insertions at or before its start."""
    starts = {}
    for lane, at, delta, grow in insertions:
        starts.setdefault(lane, []).append((at, delta))
        for i in grow:
            events[i]["dur"] += delta
    shifts = {}
    for lane, items in starts.items():
        items.sort()
        total, cumulative = 0, []
        for _, delta in items:
            total += delta
            cumulative.append(total)
        shifts[lane] = ([at for at, _ in items], cumulative)
    for e in events:
        ts = e.get("ts")
        if not isinstance(ts, (int, float)):
            continue
        lane = shifts.get(thread_key(e))
        if lane is not None:
            k = bisect.bisect_right(lane[0], ts)
            if k:
                e["ts"] = ts + lane[1][k - 1]


def rounded(value, whole):
    return int(round(value)) if whole else value


def slow_self_cpu(events, op, factor):
    whole = integer_times(events)
    parent = parents_by_nesting(events)
    children_time = {}
    for i, p in parent.items():
        if p is not None:
            children_time[p] = children_time.get(p, 0) + events[i]["dur"]
    targets = [i for i in parent if events[i].get("name") == op]
    # Latest first: an insertion moves only what lies after it, so earlier ones stay where they were.
    targets.sort(key=lambda i: events[i]["ts"] + events[i]["dur"], reverse=True)
    injected = 0
    changed = 0
    insertions = []
    for i in targets:
        self_time = max(0, events[i]["dur"] - children_time.get(i, 0))
        delta = rounded((factor - 1.0) * self_time, whole)
        if delta <= 0:
            continue
        chain = []
        j = i
        while j is not None:
            chain.append(j)
            j = parent[j]
        insertions.append((thread_key(events[i]), events[i]["ts"] + events[i]["dur"], delta, chain))
        injected += delta
        changed += 1
    insert_times(events, insertions)
    return injected, changed


def slow_device(events, op, factor):
    whole = integer_times(events)
    parent = parents_by_nesting(events)

    def inside_op(i):
        while i is not None:
            if events[i].get("name") == op:
                return True
            i = parent.get(i)
        return False

    launched = set()
    for i in parent:
        e = events[i]
        correlation = (e.get("args") or {}).get("correlation")
        if correlation is not None and str(e.get("cat", "")).lower() in ("runtime", "cuda_runtime", "cuda_driver") \
                and inside_op(parent[i]):
            launched.add(correlation)
    targets = [i for i, e in enumerate(events)
               if complete(e) and is_device(e) and (e.get("args") or {}).get("correlation") in launched]
    targets.sort(key=lambda i: events[i]["ts"] + events[i]["dur"], reverse=True)
    injected = 0
    insertions = []
    for i in targets:
        delta = rounded((factor - 1.0) * events[i]["dur"], whole)
        if delta <= 0:
            continue
        insertions.append((thread_key(events[i]), events[i]["ts"] + events[i]["dur"], delta, [i]))
        injected += delta
    insert_times(events, insertions)
    return injected, len(targets)


def inject(in_path, out_path, op, factor, metric):
    doc, events = load(in_path)
    if metric == "device":
        injected, changed = slow_device(events, op, factor)
    else:
        injected, changed = slow_self_cpu(events, op, factor)
    save(out_path, doc)
    return injected, changed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--op", required=True)
    parser.add_argument("--factor", type=float, required=True)
    parser.add_argument("--metric", choices=["self_cpu", "device"], default="self_cpu")
    args = parser.parse_args()
    if args.factor < 1.0:
        sys.exit("inject_slowdown.py: --factor must be at least 1")
    injected, changed = inject(args.input, args.output, args.op, args.factor, args.metric)
    print(f"injected {injected} us into {changed} events of {args.op}")


if __name__ == "__main__":
    main()
