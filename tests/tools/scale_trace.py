#!/usr/bin/env python3
"""Makes a copy of a real PyTorch trace in which everything runs F times as long, the way a slower clock
(or power cap, or noisy neighbour) would show it: every event's ts (from the trace's first ts) and dur
are multiplied by F, so nesting, order and streams stay as the profiler would have written them.

  scale_trace.py IN OUT --factor F

Times stay integers where the trace's are (legacy traces: whole µs), so short events round as a real
trace would. Reads and writes legacy (bare array) and Kineto (traceEvents) traces, gzip or plain by the
file name. Prints how many events changed. Standard library only.
"""

import argparse
import gzip
import json


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f)
    return doc, (doc if isinstance(doc, list) else doc.get("traceEvents", []))


def save(path, doc):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as f:
        json.dump(doc, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--factor", type=float, required=True)
    args = parser.parse_args()
    doc, events = load(args.input)
    timed = [e for e in events if isinstance(e, dict) and isinstance(e.get("ts"), (int, float))]
    integer = all(isinstance(e.get("ts"), int) and isinstance(e.get("dur", 0), int) for e in timed)
    start = min(e["ts"] for e in timed)

    def scaled(value):
        v = value * args.factor
        return int(round(v)) if integer else round(v, 3)

    changed = 0
    for e in timed:
        e["ts"] = start + scaled(e["ts"] - start)
        if isinstance(e.get("dur"), (int, float)) and e["dur"] > 0:
            e["dur"] = scaled(e["dur"])
        changed += 1
    save(args.output, doc)
    print(f"{changed} events scaled by {args.factor}")


if __name__ == "__main__":
    main()
