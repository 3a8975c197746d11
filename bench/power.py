#!/usr/bin/env python3
"""Statistical power of the gate, measured: how often it catches a slowdown injected into one op of a
real profile, and how often it fails when nothing changed.

  python3 bench/power.py [--binary build/src/neuron-gate] [--splits 20] [--seed 1] [--quick]

Profiles (all in the repository):
- RMSNorm (examples/rmsnorm-4x512/A: 10 runs x 8 traces, legacy CPU traces, self CPU time). Each split
  draws 5 of the 10 runs for base and the other 5 for head (seeded); the head copy gets the slowdown in
  one op's self CPU time (tests/tools/inject_slowdown.py). Traces only: e2e.json and the key_averages
  tables are left out, so the per-op metrics must decide.
- ResNet50 (tests/data/corpus/K1 vs K2: one trace of 6 steps each, the same script captured twice, V100
  device time). There is nothing to split: each op is one trial, slowed in a copy of K2.

Per factor (1.0 = nothing injected) it prints, for each op, the share of trials where the gate failed
(exit 1; with 1.0 that is the false-alarm rate) and where the op itself was REGRESSED, beside the op's
base median per step. Not a test: the numbers go to README's "Statistical power" table.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
import inject_slowdown  # noqa: E402

FACTORS = [1.0, 1.1, 1.2, 1.5, 2.0]
RMSNORM = os.path.join(ROOT, "examples", "rmsnorm-4x512", "A")
RMSNORM_OPS = ["rmsnorm_step", "aten::pow", "aten::_to_copy", "aten::mean"]
RESNET_BASE = os.path.join(ROOT, "tests", "data", "corpus", "K1")
RESNET_HEAD = os.path.join(ROOT, "tests", "data", "corpus", "K2")
RESNET_OPS = ["aten::cudnn_convolution", "aten::cudnn_batch_norm", "aten::threshold_",
              "aten::cudnn_convolution_backward_input", "aten::add_"]


def traces_of(folder):
    found = []
    for dirpath, _, files in os.walk(folder):
        for name in files:
            if ".pt.trace.json" in name:
                found.append(os.path.join(dirpath, name))
    return sorted(found)


def run_compare(binary, base, head, work, extra=()):
    """Runs `compare BASE HEAD --quiet --no-git --json` in work: (exit code, JSON report or None, stderr)."""
    out = os.path.join(work, "report.json")
    if os.path.exists(out):
        os.remove(out)
    run = subprocess.run([binary, "compare", base, head, "--quiet", "--no-git", "--json", out, *extra],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    report = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            report = json.load(f)
    return run.returncode, report, run.stderr.strip()


def compare(binary, base, head, work):
    code, report, err = run_compare(binary, base, head, work)
    if code not in (0, 1, 4) or report is None:
        raise SystemExit(f"power.py: compare exited {code}: {err}")
    return code, report


def op_metric(report, op, metric_class):
    for m in report.get("metrics", []):
        if m.get("name") == op and m.get("class") == metric_class:
            return m
    return None


def base_median(report, op, metric_class):
    m = op_metric(report, op, metric_class)
    if m is None or not isinstance(m.get("base"), dict):
        return None
    return m["base"].get("median")


def copy_runs(runs, dest, op=None, factor=1.0, metric="self_cpu"):
    for run in runs:
        for trace in traces_of(run):
            target = os.path.join(dest, os.path.basename(run), os.path.basename(trace))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if op is None or factor == 1.0:
                shutil.copyfile(trace, target)
            else:
                inject_slowdown.inject(trace, target, op, factor, metric)


def rmsnorm_trials(binary, splits, seed, factors, ops, work):
    runs = sorted(os.path.join(RMSNORM, d) for d in os.listdir(RMSNORM) if d.startswith("run-"))
    rng = random.Random(seed)
    draws = [rng.sample(runs, len(runs) // 2) for _ in range(splits)]
    rows = []
    for op in ops:
        for factor in factors:
            failed = named = 0
            median = None
            for base_runs in draws:
                head_runs = [r for r in runs if r not in base_runs]
                trial = tempfile.mkdtemp(dir=work)
                copy_runs(base_runs, os.path.join(trial, "base"))
                copy_runs(head_runs, os.path.join(trial, "head"), op, factor)
                code, report = compare(binary, os.path.join(trial, "base"), os.path.join(trial, "head"), trial)
                failed += code == 1
                m = op_metric(report, op, "self_cpu")
                named += bool(m and m.get("verdict") == "REGRESSED")
                median = median if median is not None else base_median(report, op, "self_cpu")
                shutil.rmtree(trial)
            rows.append(("RMSNorm A (5 vs 5 runs)", op, "self CPU", median, factor, failed, named, splits))
    return rows


def resnet_trials(binary, factors, ops, work):
    rows = []
    head_trace = traces_of(RESNET_HEAD)[0]
    for op in ops:
        for factor in factors:
            trial = tempfile.mkdtemp(dir=work)
            head = os.path.join(trial, "head")
            os.makedirs(head)
            target = os.path.join(head, os.path.basename(head_trace))
            if factor == 1.0:
                shutil.copyfile(head_trace, target)
            else:
                inject_slowdown.inject(head_trace, target, op, factor, "device")
            code, report = compare(binary, RESNET_BASE, head, trial)
            m = op_metric(report, op, "device")
            rows.append(("ResNet50 K1 vs K2 (6 vs 6 steps)", op, "device", base_median(report, op, "device"),
                         factor, int(code == 1), int(bool(m and m.get("verdict") == "REGRESSED")), 1))
            shutil.rmtree(trial)
    return rows


def print_table(rows):
    print("| profile | op | metric | base median per step | slowdown | gate failed | op REGRESSED | trials |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for profile, op, metric, median, factor, failed, named, trials in rows:
        med = "n/a" if median is None else f"{median:.0f} µs"
        label = "none (A/A)" if factor == 1.0 else f"{factor:g}x"
        print(f"| {profile} | `{op}` | {metric} | {med} | {label} | {failed}/{trials} | {named}/{trials} | {trials} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "neuron-gate"))
    parser.add_argument("--splits", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="one op per profile, 5 splits")
    args = parser.parse_args()
    splits = 5 if args.quick else args.splits
    rms_ops = RMSNORM_OPS[:1] if args.quick else RMSNORM_OPS
    resnet_ops = RESNET_OPS[:1] if args.quick else RESNET_OPS
    with tempfile.TemporaryDirectory(prefix="neuron-gate-power-") as work:
        rows = rmsnorm_trials(args.binary, splits, args.seed, FACTORS, rms_ops, work)
        rows += resnet_trials(args.binary, FACTORS, resnet_ops, work)
    print(f"neuron-gate power benchmark: {os.path.relpath(args.binary, ROOT)}, seed {args.seed}, {splits} splits")
    print_table(rows)


if __name__ == "__main__":
    main()
