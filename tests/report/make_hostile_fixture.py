#!/usr/bin/env python3
"""Writes the hostile-names fixture (issue 11 / issue 15): two profiles per variant, made by copying the
bundled example traces (examples/rmsnorm-4x512/A as base, Areg as head: PyTorch 1.13 traces, see
examples/PROFILES-README.md) and renaming every op, the end-to-end metric, the run manifest's values and
some file and folder names.

  OUT/hostile/{base,head}   names with CR, LF, U+2028, U+0085, backticks, pipes, <!--, <img onerror>,
                            [link](url), ![image](url), @mentions, ::error::, ::stop-commands::, invalid
                            UTF-8 bytes (in file and folder names: the JSON readers refuse them inside a
                            file, naming it), U+FFFF, U+FFFE, terminal escape sequences, bidirectional
                            overrides and isolates, "## ✅ PASS" after a CR
  OUT/clean/{base,head}     the same profiles with plain names (op_01, ...): the report a hostile report
                            must look like (same headings, table rows and links)
  OUT/broken/head           a cut trace whose file name holds LF + ::stop-commands:: (an input error that
                            echoes the name on stderr)

Usage: make_hostile_fixture.py SOURCE_DIR OUT_DIR
Standard library only. Deterministic: the same bytes every time.
"""

import json
import os
import shutil
import sys

# One hostile name per op (ops sorted by name, the regressed aten::div_ first).
HOSTILE = [
    "div\r## ✅ PASS · 0 regressed <!--",
    "bidi\u202eDESSERGER\u202c \u2066iso\u2069 \u200fmark\u061c",  # Trojan Source: RLO reverses what follows
    "line\nbreak ## not a heading",
    "sep\u2028## after U+2028",
    "back`tick",
    "pi|pe | x |",
    "<!-- hidden rows",
    "<img src=x onerror=alert(1)>",
    "[link](http://x)",
    "@user",
    "::error::injected",
    "x\n::stop-commands::tok",
    "ctl\x01\x02\x03\x04 markers",  # the report's own prose markers (escape.hpp) as data
    "nonchar\uffff",
    "nonchar\ufffe",
    "![img](http://x/i.png)",
    "`unmatched <img src=x onerror=alert(2)> @user2 [l](http://y)",
    "esc\x1b[31mred\x1b]0;title\x07",
    "www.evil.com #12 ~~s~~ **b** _i_ $x$ :white_check_mark: GH-3",
    "nel\u0085x",
]
INVALID = "\u0000INVALID-UTF8-{}\u0000"  # placeholder replaced by raw bytes after JSON encoding

MANIFEST_HOSTILE = {
    "model_version": "m{} :white_check_mark: gh-5 `<img src=x onerror=alert(3)> [link](http://x) @user",
    "versions": {"torch": "2.1 `<img src=x onerror=alert(4)> ![i](http://x) @octocat",
                 "x\r## ✅ PASS <!--": "1.0\n::error::v"},
    "instance_type": "trn2 | <!-- | \u2028 ::warning::",
}
MANIFEST_CLEAN = {
    "model_version": "m{}",
    "versions": {"torch": "2.1", "neuronx": "1.0"},
    "instance_type": "trn2",
}


def op_names(source):
    names = set()
    for root, _, files in os.walk(source):
        for name in files:
            if name.endswith(".pt.trace.json"):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    for event in json.load(f):
                        if event.get("ph") == "X" and not event["name"].startswith("ProfilerStep#"):
                            names.add(event["name"])
    return sorted(names, key=lambda n: (n != "aten::div_", n))


def encode(value, raw):
    text = json.dumps(value, ensure_ascii=False, indent=None).encode("utf-8")
    for index, data in raw.items():
        text = text.replace(json.dumps(INVALID.format(index)).encode("utf-8")[1:-1], data)
    return text


def mapping(names, hostile):
    result, raw = {}, {}
    for i, name in enumerate(names):
        if not hostile:
            result[name] = f"op_{i + 1:02d}"
            continue
        # Fewer ops than names: op i also carries names i + n, i + 2n, ... so that every name is used.
        value = HOSTILE[i % len(HOSTILE)] if len(names) >= len(HOSTILE) else \
            " ".join(HOSTILE[j] for j in range(i, len(HOSTILE), len(names)))
        suffix = "" if i < len(HOSTILE) else f" {i}"
        if isinstance(value, bytes):
            raw[i] = value + suffix.encode()
            value = INVALID.format(i)
        else:
            value += suffix
        result[name] = value
    return result, raw


def file_name(run, index, hostile):
    """Some runs get hostile folder and file names (bytes: Linux file names are bytes). The clean side gets
    plain folders in the same places (sorted the same), so both sides hold the same runs: base's A/A noise
    check halves them alike."""
    if index != 0 or run not in ("run-01", "run-02"):
        return run.encode(), None
    if not hostile:
        return (run + "-first").encode(), None
    if run == "run-01":
        return "run-01\r## ✅ PASS <!--".encode(), "trace\n::stop-commands::tok`|<!--.pt.trace.json".encode()
    if run == "run-02":
        return b"run-02 \xff\xfe bad", "[x](http:x) @user ::error::.pt.trace.json".encode()
    return run.encode(), None


def copy_side(source, target, names, raw, hostile, side_number):
    os.makedirs(target, exist_ok=True)
    for run in sorted(os.listdir(source)):
        run_dir = os.path.join(source, run)
        if not os.path.isdir(run_dir):
            continue
        traces = sorted(n for n in os.listdir(run_dir) if n.endswith(".pt.trace.json"))
        for index, trace in enumerate(traces):
            folder, special = file_name(run, index, hostile)
            out_dir = os.path.join(os.fsencode(target), folder)
            os.makedirs(out_dir, exist_ok=True)
            with open(os.path.join(run_dir, trace), encoding="utf-8") as f:
                events = json.load(f)
            for event in events:
                event["name"] = names.get(event["name"], event["name"])
            with open(os.path.join(out_dir, special or trace.encode()), "wb") as f:
                f.write(encode(events, raw))
    with open(os.path.join(source, "e2e.json"), encoding="utf-8") as f:
        e2e = json.load(f)
    for metric in e2e["metrics"]:
        metric["name"] = "lat\r## e2e <!-- @user `x \u202eDESSERGER\u202c" if hostile else "latency"
    with open(os.path.join(target, "e2e.json"), "wb") as f:
        f.write(encode(e2e, {}))
    values = MANIFEST_HOSTILE if hostile else MANIFEST_CLEAN
    manifest = {"schema": "neuron-gate.manifest/1", "model_version": values["model_version"].format(side_number),
                "versions": values["versions"], "instance_type": values["instance_type"]}
    with open(os.path.join(target, "neuron-gate.json"), "wb") as f:
        f.write(encode(manifest, {}))


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    source, out = argv[1], argv[2]
    examples = os.path.join(source, "examples", "rmsnorm-4x512")
    names = op_names(os.path.join(examples, "A")) + [
        n for n in op_names(os.path.join(examples, "Areg")) if n not in op_names(os.path.join(examples, "A"))]
    if os.path.exists(out):
        shutil.rmtree(os.fsencode(out))
    for variant, hostile in (("hostile", True), ("clean", False)):
        renamed, raw = mapping(names, hostile)
        for number, (side, example) in enumerate((("base", "A"), ("head", "Areg")), start=1):
            copy_side(os.path.join(examples, example), os.path.join(out, variant, side), renamed, raw, hostile, number)
    broken = os.path.join(out, "broken", "head")
    os.makedirs(broken)
    shutil.copy(os.path.join(examples, "A", "e2e.json"), broken)
    with open(os.path.join(os.fsencode(broken), b"bad\n::stop-commands::tok\x1b[2J\xff.pt.trace.json"), "wb") as f:
        f.write(b'[{"name": "aten::mm", "ph": "X", "ts": 1, "dur"')
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
