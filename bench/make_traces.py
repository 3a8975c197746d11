#!/usr/bin/env python3
"""Builds the large traces of the scale benchmark (bench/scale.py) from real traces in the repository.

  make_traces.py OUTDIR [--sizes 100,300,1000]

Writes into OUTDIR (never into the repository; bench/scale.py passes BUILD/tmp/bench):
  kineto-<N>M.pt.trace.json  tests/data/corpus/K1 (a Kineto trace of ResNet-50 on a GPU, 35 MB, 6 steps):
                             every timed event repeated with timestamps shifted past the previous copy,
                             ProfilerStep#N renumbered, flow/correlation/External ids shifted, to N MB
  legacy-<N>M.pt.trace.json  examples/rmsnorm-4x512/A/run-01 (a legacy top-level-array trace, 1 step),
                             repeated the same way to N MB
  ranks64/rank-NN.pt.trace.json  64 ranks, each tests/data/corpus/H06 (Kineto, distributedInfo) repeated to
                             ~1.5 MB with its rank set
  ops50k.pt.trace.json       a legacy trace of 10 steps, each with 50,000 distinct ops (op_00000 ...)
A file already there with the right size is kept (the 1 GB ones take a while to write).
"""
import argparse
import decimal
import gzip
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
K1 = os.path.join(REPO, "tests/data/corpus/K1/worker0.1623143089861.pt.trace.json.gz")
LEGACY = os.path.join(REPO, "examples/rmsnorm-4x512/A/run-01/vm_3498.1796188404227.pt.trace.json")
H06 = os.path.join(REPO, "tests/data/corpus/H06-trace-compare-base.json.gz")
ID_ARGS = ("correlation", "External id", "external id")
STEP = re.compile(r"^ProfilerStep#(\d+)$")
MB = 1000 * 1000


def floats(value):
    """`value` with every Decimal turned back into a float (written as JSON numbers again)."""
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, dict):
        return {k: floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [floats(v) for v in value]
    return value


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=decimal.Decimal)


class Template:
    """One event as a %-format string with its ts, step number and ids as fields."""

    def __init__(self, event):
        self.ts = event.get("ts")
        self.step = None
        self.ids = {}
        e = dict(event)
        if isinstance(self.ts, (int, decimal.Decimal)):
            e["ts"] = "@@ts@@"
        else:
            self.ts = None
        m = STEP.match(str(e.get("name", "")))
        if m:
            self.step = int(m.group(1))
            e["name"] = "ProfilerStep#@@step@@"
        if isinstance(e.get("id"), int):
            self.ids["id"] = e["id"]
            e["id"] = "@@id@@"
        if isinstance(e.get("args"), dict):
            args = dict(e["args"])
            for i, key in enumerate(ID_ARGS):
                if isinstance(args.get(key), int):
                    self.ids["a%d" % i] = args[key]
                    args[key] = "@@a%d@@" % i
            e["args"] = args
        text = json.dumps(floats(e), ensure_ascii=False).replace("%", "%%")
        text = text.replace('"@@ts@@"', "%(ts)s").replace("@@step@@", "%(step)d")
        for key in self.ids:
            text = text.replace('"@@%s@@"' % key, "%%(%s)d" % key)
        self.text = text

    def render(self, rep, shift, steps, id_stride):
        fields = {k: v + rep * id_stride for k, v in self.ids.items()}
        if self.ts is not None:
            fields["ts"] = str(self.ts + rep * shift)
        if self.step is not None:
            fields["step"] = self.step + rep * steps
        return self.text % fields


def repeat_events(events):
    """The events to repeat (those with a time) as templates, the others, and the shift between copies."""
    timed = [e for e in events if isinstance(e, dict) and "ts" in e and e.get("ph") != "M"]
    fixed = [e for e in events if not (isinstance(e, dict) and "ts" in e and e.get("ph") != "M")]
    start = min(e["ts"] for e in timed)
    end = max(e["ts"] + (e.get("dur") or 0) for e in timed)
    shift = int(end - start) + 1
    steps = len({e["name"] for e in timed if STEP.match(str(e.get("name", "")))}) or 1
    ids = [0]
    for e in timed:
        if isinstance(e.get("id"), int):
            ids.append(e["id"])
        for key in ID_ARGS:
            if isinstance(e.get("args"), dict) and isinstance(e["args"].get(key), int):
                ids.append(e["args"][key])
    return [Template(e) for e in timed], fixed, shift, steps, max(ids) + 1


def write_scaled(source, path, target_bytes, top_fields=None):
    """Writes `source` (a trace object or array) with its timed events repeated to about target_bytes."""
    if os.path.exists(path) and abs(os.path.getsize(path) - target_bytes) < target_bytes * 0.05:
        return
    legacy = isinstance(source, list)
    events = source if legacy else source["traceEvents"]
    templates, fixed, shift, steps, id_stride = repeat_events(events)
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as out:
        if legacy:
            out.write("[")
        else:
            top = {k: v for k, v in source.items() if k != "traceEvents"}
            top.update(top_fields or {})
            head = json.dumps(floats(top))[:-1]
            out.write(head + (", " if len(head) > 1 else "") + '"traceEvents": [')
        first = True
        for e in fixed:
            out.write(("" if first else ", ") + json.dumps(floats(e), ensure_ascii=False))
            first = False
        written = 0
        rep = 0
        while written < target_bytes:
            parts = []
            for t in templates:
                parts.append(t.render(rep, shift, steps, id_stride))
                written += len(parts[-1]) + 2
                if written >= target_bytes:
                    break
            out.write(("" if first else ", ") + ", ".join(parts))
            first = False
            rep += 1
        out.write("]" if legacy else "]}")
    os.replace(tmp, path)


def write_ops(path, ops=50000, steps=10):
    """A legacy trace of `steps` steps, each holding `ops` distinct ops of 1-3 µs one after another."""
    if os.path.exists(path):
        return
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write("[")
        ts = 1000
        for s in range(steps):
            span = ops * 4 + 10
            out.write('%s{"name": "ProfilerStep#%d", "ph": "X", "ts": %d, "dur": %d, "tid": 1, '
                      '"pid": "CPU functions", "args": {}}' % ("" if s == 0 else ", ", s + 1, ts, span))
            t = ts + 5
            parts = []
            for k in range(ops):
                parts.append('{"name": "op_%05d", "ph": "X", "ts": %d, "dur": %d, "tid": 1, '
                             '"pid": "CPU functions", "args": {}}' % (k, t, 1 + (k + s) % 3))
                t += 4
            out.write(", " + ", ".join(parts))
            ts += span + 10
        out.write("]")
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("outdir")
    parser.add_argument("--sizes", default="100,300,1000", help="sizes of the scaled traces in MB")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    kineto = load(K1)
    legacy = load(LEGACY)
    for size in sizes:
        name = "%dM" % size if size < 1000 else "%dG" % (size // 1000)
        print("writing kineto-%s, legacy-%s" % (name, name), file=sys.stderr)
        write_scaled(kineto, os.path.join(args.outdir, "kineto-%s.pt.trace.json" % name), size * MB)
        write_scaled(legacy, os.path.join(args.outdir, "legacy-%s.pt.trace.json" % name), size * MB)
    ranks = os.path.join(args.outdir, "ranks64")
    os.makedirs(ranks, exist_ok=True)
    h06 = load(H06)
    for rank in range(64):
        write_scaled(h06, os.path.join(ranks, "rank-%02d.pt.trace.json" % rank), int(1.5 * MB),
                     {"distributedInfo": {"rank": rank, "world_size": 64}})
    write_ops(os.path.join(args.outdir, "ops50k.pt.trace.json"))


if __name__ == "__main__":
    main()
