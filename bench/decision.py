#!/usr/bin/env python3
"""Decision quality of the gate, measured on real profiles: how often it says PASS, NO DECISION and
REGRESSION on same-code data, on injected slowdowns and on a real regression (issue 36 item 9).

  python3 bench/decision.py --binary BUILD/src/neuron-gate [--quick] [--out docs/decision-quality.md]
                            [--work DIR] [--jobs 2] [--seed 1] [--torch-python /usr/bin/python3]

Sections (docs/decision-quality.md explains each table):
  (a) same-code data: direct pairs of profiles of one code, and seeded run splits of pools of runs of one
      code (A and A2 are the same code, so their runs form one pool);
  (b) slowdowns x1.1, x1.2, x1.5, x2 injected into one material op (tests/tools/inject_slowdown.py,
      traces only) or into the end-to-end latency samples, at 6, 12, 30 steps and 1, 2, 3, 5, 10 runs a
      side, subsampled from the real runs;
  (c) run subsamples of real regressions: examples/rmsnorm-4x512/A -> Areg (traces only; with e2e) and
      tests/data/profiles/rmsnorm-3cycle A -> Areg (traces only; key_averages tables only).
--quick runs a subset of every section (about 3 minutes); the full run takes about 15 on 2 cores.

The MLP profile set (scripts/profiles/gen_mlp.py, 2 x 10 runs of 30 steps) is generated on first use
into WORK/mlp (Debian's /usr/bin/python3 with python3-torch) and reused afterwards. Every trial is drawn
from one seeded generator per cell, so the tables depend on --seed and the binary only, never on --jobs.
Each compare runs with --threads 1; --jobs compares run at once (default 2, for a 2-core machine).
Raw results go to WORK/decision-results.json. Exit 0 when the benchmark ran (whatever the targets say).
"""

import argparse
import datetime
import json
import math
import multiprocessing
import os
import platform
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import power  # noqa: E402  (puts tests/tools on the path)
from power import run_compare  # noqa: E402
import inject_slowdown  # noqa: E402

EXAMPLES = os.path.join(ROOT, "examples", "rmsnorm-4x512")
CYCLE3 = os.path.join(ROOT, "tests", "data", "profiles", "rmsnorm-3cycle")
TESTS = os.path.join(ROOT, "tests", "data", "profiles")
CORPUS = os.path.join(ROOT, "tests", "data", "corpus")
GEN_MLP = os.path.join(ROOT, "scripts", "profiles", "gen_mlp.py")

RUNS = [1, 2, 3, 5, 10]
STEPS = [6, 12, 30]
FACTORS = [1.1, 1.2, 1.5, 2.0]
REG_RUNS = [1, 2, 3, 4, 5, 10]
# section (c): (label, base pool, head pool, data modes); every set has 10 runs a side
REGRESSIONS = [
    ("examples/rmsnorm-4x512 A → Areg (8 steps a run)", "a", "areg", ["traces", "e2e"]),
    ("rmsnorm-3cycle traces-A → traces-Areg (3 steps a run)", "a3", "areg3", ["traces"]),
    ("rmsnorm-3cycle tables-A → tables-Areg (3 key_averages tables a run)", "a3t", "areg3t", ["tables"]),
]
# trials a cell: (a) same-code splits; (b) per target (op >= 3 us, op < 3 us, e2e); (c) draws a size
PLANS = {
    "full": {"a": 20, "a_runs": RUNS, "b": {"op": 20, "opq": 6, "e2e": 10}, "factors": FACTORS,
             "cells": [(r, s) for r in RUNS for s in STEPS], "c": 20, "c_runs": REG_RUNS},
    "quick": {"a": 6, "a_runs": [1, 3, 5], "b": {"op": 6}, "factors": [1.5, 2.0],
              "cells": [(1, 6), (3, 12), (5, 30), (10, 30)], "c": 5, "c_runs": [1, 3, 10]},
}
TARGET_NAMES = {"op": "op ≥ 3 µs (self CPU), traces only", "opq": "op < 3 µs, 1-µs-quantised (self CPU), traces only",
                "e2e": "end-to-end latency"}
MODE_NAMES = {"traces": "traces only", "e2e": "traces + e2e", "tables": "tables only"}
SMALL_US = 3.0          # ops below this median self CPU per step are "1-us-quantised"
OUTCOMES = ["regression", "no-decision", "pass"]
MARK = {"regression": "❌", "no-decision": "⚠️", "pass": "✅"}


# ---------------------------------------------------------------------------------------------- statistics

def binom_cdf(k, n, p):
    """P(X <= k) for X ~ Binomial(n, p), 0 < p < 1."""
    return min(1.0, sum(math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                                 + i * math.log(p) + (n - i) * math.log1p(-p)) for i in range(k + 1)))


def clopper_pearson(k, n, conf=0.95):
    """Exact two-sided (Clopper-Pearson) interval for k successes in n trials: (lower, upper), by bisection
    on the binomial tails P(X <= k; upper) = P(X >= k; lower) = (1 - conf) / 2."""
    if n == 0:
        return (0.0, 1.0)
    tail = (1.0 - conf) / 2.0

    def solve(cdf_at, target, lo, hi):  # p where cdf_at(p) = target; cdf_at decreases in p
        for _ in range(60):
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if cdf_at(mid) > target else (lo, mid)
        return (lo + hi) / 2.0

    upper = 1.0 if k == n else solve(lambda p: binom_cdf(k, n, p), tail, k / n, 1.0)
    lower = 0.0 if k == 0 else solve(lambda p: binom_cdf(k - 1, n, p), 1.0 - tail, 0.0, k / n)
    return (lower, upper)


def fisher_greater(a, n1, b, n2):
    """One-sided Fisher exact p that the share b/n2 exceeds a/n1 (hypergeometric upper tail)."""
    total, hits = n1 + n2, a + b
    denom = math.comb(total, n2)
    return sum(math.comb(hits, k) * math.comb(total - hits, n2 - k)
               for k in range(b, min(hits, n2) + 1)) / denom


# ------------------------------------------------------------------------------------------------ profiles

TRACE, TABLE = ".pt.trace.json", ".key_averages.txt"


class Run:
    """One process's folder: its traces (or key_averages tables) in time order and its end-to-end latency
    samples (or None)."""

    def __init__(self, label, traces, e2e):
        self.label, self.traces, self.e2e = label, traces, e2e


def _latency(doc):
    for m in doc.get("metrics", []):
        if m.get("name") == "latency":
            return m
    return None


def load_side(folder, name_filter=None, suffix=TRACE):
    """Runs of a profile side. End-to-end samples per run come from run-XX/e2e.json, else from the side's
    e2e.json: its `runs`, or its `samples` cut into equal blocks in run order (gen_rmsnorm.py appends each
    run's samples in run order: 20 a run in the examples)."""
    run_dirs = sorted(d for d in os.listdir(folder) if d.startswith("run-"))
    runs = []
    for d in run_dirs:
        path = os.path.join(folder, d)
        traces = sorted(os.path.join(path, t) for t in os.listdir(path) if t.endswith(suffix)
                        and (name_filter is None or t.startswith(name_filter)))
        e2e = None
        if os.path.exists(os.path.join(path, "e2e.json")):
            with open(os.path.join(path, "e2e.json"), encoding="utf-8") as f:
                m = _latency(json.load(f))
            e2e = m.get("samples") if m else None
        label = os.path.relpath(path, ROOT) if path.startswith(ROOT) else \
            "WORK/" + os.path.relpath(path, os.path.dirname(os.path.dirname(folder)))
        runs.append(Run(label, traces, e2e))
    side_e2e = os.path.join(folder, "e2e.json")
    if os.path.exists(side_e2e) and all(r.e2e is None for r in runs):
        with open(side_e2e, encoding="utf-8") as f:
            m = _latency(json.load(f))
        if m and m.get("runs") and len(m["runs"]) == len(runs):
            for r, s in zip(runs, m["runs"]):
                r.e2e = list(s)
        elif m and m.get("samples") and len(m["samples"]) % len(runs) == 0:
            per = len(m["samples"]) // len(runs)
            for i, r in enumerate(runs):
                r.e2e = m["samples"][i * per:(i + 1) * per]
    return runs


def ensure_mlp(work, torch_python):
    out = os.path.join(work, "mlp")
    if os.path.isdir(os.path.join(out, "A2", "run-10")) and os.path.exists(os.path.join(out, "complete")):
        return out, None
    if os.path.exists(out):
        shutil.rmtree(out)
    print(f"decision.py: generating the MLP profiles into {out} (scripts/profiles/gen_mlp.py, ~2 min)",
          file=sys.stderr, flush=True)
    started = time.time()
    run = subprocess.run([torch_python, GEN_MLP, out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        print(f"decision.py: MLP profiles not generated ({run.stderr.strip().splitlines()[-1:]}); "
              "the MLP pool is left out", file=sys.stderr)
        return None, None
    with open(os.path.join(out, "complete"), "w") as f:
        f.write(f"generated in {time.time() - started:.0f} s\n")
    return out, time.time() - started


def load_pools(mlp_dir):
    pools = {}
    pools["rmsnorm"] = {
        "label": "RMSNorm examples A∪A2 (20 runs × 8 steps, legacy integer-µs traces)",
        "runs": load_side(os.path.join(EXAMPLES, "A")) + load_side(os.path.join(EXAMPLES, "A2"))}
    pools["rmsnorm3"] = {
        "label": "RMSNorm 3-cycle set tests/data/profiles/rmsnorm-3cycle/traces-A (10 runs × 3 steps, the first a "
                 "warm-up cycle)", "runs": load_side(os.path.join(CYCLE3, "traces-A"))}
    pools["testsA"] = {
        "label": "tests/data/profiles traces-only/A ∪ new-call-site/A (8 runs × 3 steps, traces only)",
        "runs": load_side(os.path.join(TESTS, "traces-only", "A")) + [
            Run(r.label, r.traces, None) for r in load_side(os.path.join(TESTS, "new-call-site", "A"))]}
    if mlp_dir:
        pools["mlp"] = {
            "label": "MLP block A∪A2 (generated, 20 runs × 30 steps, 30 latency samples a run)",
            "runs": load_side(os.path.join(mlp_dir, "A")) + load_side(os.path.join(mlp_dir, "A2"))}
    # section (c): real regressions
    pools["a"] = {"runs": load_side(os.path.join(EXAMPLES, "A"))}
    pools["areg"] = {"runs": load_side(os.path.join(EXAMPLES, "Areg"))}
    pools["a3"] = {"runs": pools["rmsnorm3"]["runs"]}
    pools["areg3"] = {"runs": load_side(os.path.join(CYCLE3, "traces-Areg"))}
    pools["a3t"] = {"runs": load_side(os.path.join(CYCLE3, "tables-A"), suffix=TABLE)}
    pools["areg3t"] = {"runs": load_side(os.path.join(CYCLE3, "tables-Areg"), suffix=TABLE)}
    return pools


# -------------------------------------------------------------------------------------------------- trials

POOLS = {}
BINARY = None
TRIAL_ROOT = None


def _place(src, dst):
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    try:
        os.link(src, dst)
    except OSError:
        shutil.copyfile(src, dst)


def _write_e2e(path, samples):
    doc = {"schema": "neuron-gate.e2e/1",
           "metrics": [{"name": "latency", "unit": "ms", "better": "lower", "samples": samples}]}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f)


def _materialize(side_dir, pool, picks, with_e2e, inject=None):
    """picks: [(run index in pool, trace indices, e2e sample indices or None)]."""
    runs = POOLS[pool]["runs"]
    for n, (ri, trace_idx, e2e_idx) in enumerate(picks):
        run = runs[ri]
        dest = os.path.join(side_dir, f"run-{n + 1:02d}")
        os.makedirs(dest, exist_ok=True)
        for ti in trace_idx:
            src = run.traces[ti]
            dst = os.path.join(dest, os.path.basename(src))
            if inject and inject["kind"] == "op":
                inject_slowdown.inject(src, dst, inject["op"], inject["factor"], "self_cpu")
            else:
                _place(src, dst)
        if with_e2e:
            samples = [run.e2e[i] for i in (e2e_idx if e2e_idx is not None else range(len(run.e2e)))]
            if inject and inject["kind"] == "e2e":
                samples = [round(v * inject["factor"], 9) for v in samples]
            _write_e2e(os.path.join(dest, "e2e.json"), samples)


def _copy_tree(src, dst, traces_only, name_filter):
    for dirpath, _, files in os.walk(src):
        for name in files:
            if name_filter and not name.startswith(name_filter):
                continue
            if traces_only and ".pt.trace.json" not in name:
                continue
            path = os.path.join(dirpath, name)
            _place(path, os.path.join(dst, os.path.relpath(path, src)))


def run_trial(spec):
    trial = os.path.join(TRIAL_ROOT, f"t{os.getpid()}")
    if os.path.exists(trial):
        shutil.rmtree(trial)
    os.makedirs(trial)
    try:
        if spec["kind"] == "direct":
            if spec["traces_only"] or spec.get("filter"):
                base, head = os.path.join(trial, "base"), os.path.join(trial, "head")
                _copy_tree(spec["base"], base, spec["traces_only"], spec.get("filter"))
                _copy_tree(spec["head"], head, spec["traces_only"], spec.get("filter"))
            else:
                base, head = spec["base"], spec["head"]
        else:
            base, head = os.path.join(trial, "base"), os.path.join(trial, "head")
            _materialize(base, spec["base_pool"], spec["base"], spec["e2e"])
            _materialize(head, spec["head_pool"], spec["head"], spec["e2e"], spec.get("inject"))
        code, report, err = run_compare(BINARY, base, head, trial, ["--threads", "1"])
    finally:
        shutil.rmtree(trial, ignore_errors=True)
    result = {"id": spec["id"], "exit": code}
    if report is None:
        result["outcome"] = "error"
        result["error"] = err[-300:]
        return result
    result["outcome"] = report.get("verdict")
    result["line"] = report.get("verdict_line")
    inject = spec.get("inject")
    if inject:
        cls, name = ("end_to_end", "latency") if inject["kind"] == "e2e" else ("self_cpu", inject["op"])
        for m in report.get("metrics", []):
            if m.get("class") == cls and m.get("name") == name and not m.get("scope"):
                result["metric_verdict"] = m.get("verdict")
                result["metric_reason"] = (m.get("reason") or "")[:160]
                result["metric_ratio"] = [m.get("ratio"), *(m.get("ratio_ci90") or [None, None])]
                break
    return result


def _init_worker(pools, binary, trial_root):
    global POOLS, BINARY, TRIAL_ROOT
    POOLS, BINARY, TRIAL_ROOT = pools, binary, trial_root


# ------------------------------------------------------------------------------------------------ planning

def _spread(total, parts):
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def _picks(pool_runs, chosen, steps_per_run, with_e2e):
    """For each chosen run: (run index, its first k trace indices, its first k latency samples when with_e2e
    and k is set; all of them when k is None). The first k steps are what a shorter profiler schedule records."""
    out = []
    for ri, k in zip(chosen, steps_per_run):
        idx = list(range(len(pool_runs[ri].traces) if k is None else k))
        out.append((ri, idx, list(range(k)) if with_e2e and k is not None else None))
    return out


def plan_same_code(pools, trials, seed, mlp_dir, sizes):
    specs = []
    pairs = [
        ("RMSNorm examples A → A2 (bundled, e2e pooled)", os.path.join(EXAMPLES, "A"), os.path.join(EXAMPLES, "A2"), False, None, 10),
        ("RMSNorm examples A → A2, traces only", os.path.join(EXAMPLES, "A"), os.path.join(EXAMPLES, "A2"), True, None, 10),
        ("ResNet50 K1 → K2 (one process each, device time)", os.path.join(CORPUS, "K1"), os.path.join(CORPUS, "K2"), False, None, 1),
        ("tests traces-only/A → new-call-site/A, traces only", os.path.join(TESTS, "traces-only", "A"),
         os.path.join(TESTS, "new-call-site", "A"), True, None, 4),
        ("tests two-ranks base → head, rank 0 only (same code on rank 0)", os.path.join(TESTS, "two-ranks", "base"),
         os.path.join(TESTS, "two-ranks", "head"), True, "rank-0", 4),
    ]
    op_root = os.path.join(TESTS, "operating-points")
    points = sorted(os.listdir(os.path.join(op_root, "base")))
    for a, b in [("base", "partial"), ("base", "head"), ("head", "partial")]:
        for p in points:
            if p == "16x2048-float32" and "head" in (a, b):
                continue  # head's Areg point: not the same code
            if os.path.isdir(os.path.join(op_root, b, p)) and os.path.isdir(os.path.join(op_root, a, p)):
                pairs.append((f"tests operating-points {a} → {b} at {p}", os.path.join(op_root, a, p),
                              os.path.join(op_root, b, p), False, None, 2))
    if mlp_dir:
        pairs += [("MLP A → A2 (generated, e2e per run)", os.path.join(mlp_dir, "A"), os.path.join(mlp_dir, "A2"), False, None, 10),
                  ("MLP A → A2, traces only", os.path.join(mlp_dir, "A"), os.path.join(mlp_dir, "A2"), True, None, 10)]
    for label, a, b, traces_only, name_filter, nruns in pairs:
        for direction, (base, head) in (("→", (a, b)), ("←", (b, a))):
            specs.append({"id": ("a-direct", label, direction), "kind": "direct", "base": base, "head": head,
                          "traces_only": traces_only, "filter": name_filter, "runs": nruns})
    for pool in ["rmsnorm", "rmsnorm3", "mlp", "testsA"]:
        if pool not in pools:
            continue
        runs = pools[pool]["runs"]
        has_e2e = all(r.e2e for r in runs)
        for mode in (["e2e", "traces"] if has_e2e else ["traces"]):
            for r in sizes + ([4] if len(runs) == 8 else []):
                if 2 * r > len(runs):
                    continue
                rng = random.Random(f"{seed}|a|{pool}|{mode}|{r}")
                for i in range(trials):
                    chosen = rng.sample(range(len(runs)), 2 * r)
                    base = _picks(runs, chosen[:r], [None] * r, mode == "e2e")
                    head = _picks(runs, chosen[r:], [None] * r, mode == "e2e")
                    specs.append({"id": ("a-split", pool, mode, r, i), "kind": "split", "base_pool": pool,
                                  "head_pool": pool, "base": base, "head": head, "e2e": mode == "e2e", "runs": r})
    return specs


def material_ops(binary, pools, pool, work):
    """Material self-CPU ops of a pool (first half of its runs vs the second, traces only, all steps),
    with base's median per step: [(op, median µs)]."""
    runs = pools[pool]["runs"]
    half = len(runs) // 2
    spec = {"id": ("ref", pool), "kind": "split", "base_pool": pool, "head_pool": pool, "e2e": False,
            "base": [(i, list(range(len(runs[i].traces))), None) for i in range(half)],
            "head": [(i, list(range(len(runs[i].traces))), None) for i in range(half, 2 * half)]}
    _init_worker(pools, binary, work)
    base, head = os.path.join(work, "ref", "base"), os.path.join(work, "ref", "head")
    shutil.rmtree(os.path.join(work, "ref"), ignore_errors=True)
    _materialize(base, pool, spec["base"], False)
    _materialize(head, pool, spec["head"], False)
    code, report, err = run_compare(binary, base, head, os.path.join(work, "ref"), ["--threads", "1"])
    shutil.rmtree(os.path.join(work, "ref"), ignore_errors=True)
    if report is None:
        raise SystemExit(f"decision.py: reference compare of {pool} failed ({code}): {err}")
    ops = []
    for m in report["metrics"]:
        if m.get("class") == "self_cpu" and m.get("material") and not m.get("scope") and m.get("base"):
            ops.append((m["name"], m["base"]["median"], m.get("base_share")))
    return sorted(ops, key=lambda o: -o[1]), report["material"]


def plan_slowdowns(pools, ops_by_pool, trials, seed, cells, factors):
    specs = []
    for pool in ["mlp", "rmsnorm"]:
        if pool not in pools:
            continue
        runs = pools[pool]["runs"]
        max_steps = min(len(r.traces) for r in runs)
        max_e2e = min(len(r.e2e) for r in runs) if all(r.e2e for r in runs) else 0
        big = [o for o, med, _ in ops_by_pool[pool] if med >= SMALL_US]
        small = [o for o, med, _ in ops_by_pool[pool] if med < SMALL_US]
        for target, ops in (("op", big), ("opq", small), ("e2e", None)):
            if target not in trials or (target != "e2e" and not ops):
                continue
            if target == "e2e" and not max_e2e:
                continue
            for factor in factors:
                for r, s in cells:
                    per_run = _spread(s, r)
                    if s < r or 2 * r > len(runs) or max(per_run) > max_steps or \
                            (target == "e2e" and max(per_run) > max_e2e):
                        continue
                    rng = random.Random(f"{seed}|b|{pool}|{target}|{factor}|{r}|{s}")
                    for i in range(trials[target]):
                        chosen = rng.sample(range(len(runs)), 2 * r)
                        with_e2e = target == "e2e"
                        base = _picks(runs, chosen[:r], per_run, with_e2e)
                        head = _picks(runs, chosen[r:], per_run, with_e2e)
                        inject = ({"kind": "e2e", "factor": factor} if target == "e2e"
                                  else {"kind": "op", "op": ops[i % len(ops)], "factor": factor})
                        specs.append({"id": ("b", pool, target, factor, r, s, i), "kind": "split",
                                      "base_pool": pool, "head_pool": pool, "base": base, "head": head,
                                      "e2e": with_e2e, "inject": inject, "runs": r})
    return specs


def plan_regression(pools, trials, seed, sizes):
    """Distinct random draws of `runs` base runs and `runs` head runs (all steps of each), per set and size."""
    specs = []
    for label, pa, pb, modes in REGRESSIONS:
        a, reg = pools[pa]["runs"], pools[pb]["runs"]
        for mode in modes:
            for r in sizes:
                rng = random.Random(f"{seed}|c|{label}|{mode}|{r}")
                want = min(trials, math.comb(len(a), r) * math.comb(len(reg), r))
                seen = set()
                while len(seen) < want:
                    key = (tuple(sorted(rng.sample(range(len(a)), r))), tuple(sorted(rng.sample(range(len(reg)), r))))
                    if key in seen:
                        continue
                    seen.add(key)
                    base = _picks(a, list(key[0]), [None] * r, mode == "e2e")
                    head = _picks(reg, list(key[1]), [None] * r, mode == "e2e")
                    specs.append({"id": ("c", label, mode, r, len(seen) - 1), "kind": "split", "base_pool": pa,
                                  "head_pool": pb, "base": base, "head": head, "e2e": mode == "e2e", "runs": r})
    return specs


# ---------------------------------------------------------------------------------------------- reporting

def draw_text(spec):
    """The runs a built trial drew, by folder: `A/run-01,run-04 → Areg/run-02,run-07`."""
    def side(pool, picks):
        labels = [POOLS[pool]["runs"][ri].label for ri, _, _ in picks]
        parents = sorted({os.path.dirname(lab) for lab in labels})
        return ";".join(p + "/" + ",".join(os.path.basename(lab) for lab in labels if os.path.dirname(lab) == p)
                        for p in parents)
    return f"{side(spec['base_pool'], spec['base'])} → {side(spec['head_pool'], spec['head'])}"


def tally(results):
    t = {"n": 0, "regression": 0, "no-decision": 0, "pass": 0, "other": 0}
    for r in results:
        t["n"] += 1
        t[r["outcome"] if r["outcome"] in OUTCOMES else "other"] += 1
    return t


def named_metrics(results):
    """The metrics the ❌ and ⚠️ headlines name (the first `...` of the verdict line), most frequent first."""
    counts = {}
    for r in results:
        line = r.get("line") or ""
        if r["outcome"] in ("regression", "no-decision") and line.count("`") >= 2:
            key = MARK[r["outcome"]] + " `" + line.split("`")[1] + "`"
            counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1])[:4])


def cell(text):
    return text.replace("|", "\\|")


def pct(k, n):
    return "n/a" if n == 0 else f"{100.0 * k / n:.0f}%"


def rate(k, n):
    return f"{k}/{n} ({pct(k, n)}; CP95 ≤ {100 * clopper_pearson(k, n)[1]:.1f}%)"


def shares(t):
    return f"❌ {pct(t['regression'], t['n'])} · ⚠️ {pct(t['no-decision'], t['n'])} · ✅ {pct(t['pass'], t['n'])}" + (
        f" · other {t['other']}" if t["other"] else "")


def grouped(specs, results, section, key):
    out = {}
    for s, r in zip(specs, results):
        if s["id"][0] == section:
            out.setdefault(key(s["id"]), []).append((s, r))
    return out


def render(meta, pools, ops_by_pool, specs, results, targets):
    L = ["### Run", "", f"- Command: `{meta['command']}`",
         f"- Binary `{meta['binary']}`: `{meta['version']}`",
         f"- {'--quick' if meta['quick'] else 'Full run'}; seed {meta['seed']}; {meta['jobs']} compares at once, each "
         f"`--threads 1`; {meta['trials']} compares in {meta['duration']}"
         + (f" (plus {meta['mlp_gen']} to generate the MLP profiles)" if meta.get("mlp_gen") else ""),
         f"- {meta['machine']}; load average at start {meta['load']} (shared with other jobs); {meta['date']}", "",
         "Pools of runs of one code:", ""]
    L += [f"- `{name}`: {p['label']}" for name, p in pools.items() if "label" in p]

    L += ["", "### (a) Same code: direct pairs", "", "| pair | runs a side | → | ← | verdict line (→) |",
          "|---|--:|:-:|:-:|---|"]
    direct = grouped(specs, results, "a-direct", lambda i: i[1])
    for label, rows in direct.items():
        (s, fwd), (_, bwd) = rows
        L.append(f"| {label} | {s['runs']} | {MARK.get(fwd['outcome'], fwd['outcome'])} | "
                 f"{MARK.get(bwd['outcome'], bwd['outcome'])} | {cell((fwd.get('line') or fwd.get('error', ''))[:160])} |")
    t = tally([r for rows in direct.values() for _, r in rows])
    L += ["", f"Direct pairs: {t['n']} compares, ❌ {rate(t['regression'], t['n'])}, ⚠️ "
              f"{rate(t['no-decision'], t['n'])}, ✅ {t['pass']}, other {t['other']}.", "",
          "### (a) Same code: run splits", "",
          "| pool | data | runs a side | trials | ❌ exit 1 | ⚠️ NO DECISION | ✅ | other | metrics named by ❌ / ⚠️ |",
          "|---|---|--:|--:|---|---|--:|--:|---|"]
    for (pool, mode, runs), rows in grouped(specs, results, "a-split", lambda i: i[1:4]).items():
        t = tally([r for _, r in rows])
        L.append(f"| `{pool}` | {MODE_NAMES[mode]} | {runs} | {t['n']} | {rate(t['regression'], t['n'])} | "
                 f"{rate(t['no-decision'], t['n'])} | {t['pass']} | {t['other']} | {named_metrics([r for _, r in rows])} |")

    bres = grouped(specs, results, "b", lambda i: i[1:6])
    for pool in ["mlp", "rmsnorm"]:
        for target in ["op", "opq", "e2e"]:
            keys = [k for k in bres if k[0] == pool and k[1] == target]
            if not keys:
                continue
            cols = sorted({k[4] for k in keys})
            L += ["", f"### (b) `{pool}`: {TARGET_NAMES[target]} ({len(bres[keys[0]])} trials a cell)", "",
                  "| factor | runs a side | " + " | ".join(f"{c} steps a side" for c in cols) + " |",
                  "|---|--:|" + "---|" * len(cols)]
            for f in sorted({k[2] for k in keys}):
                for runs in sorted({k[3] for k in keys}):
                    cells = [shares(tally([r for _, r in bres[(pool, target, f, runs, c)]]))
                             if (pool, target, f, runs, c) in bres else "—" for c in cols]
                    L.append(f"| ×{f:g} | {runs} | " + " | ".join(cells) + " |")
            if target == "e2e":
                continue
            L += ["", "| op | base median per step | factor | ❌ | ⚠️ | ✅ | the op's verdict in the ✅ trials |",
                  "|---|--:|--:|--:|--:|--:|---|"]
            for op, med, _ in ops_by_pool[pool]:
                for f in sorted({k[2] for k in keys}):
                    rs = [r for k in keys if k[2] == f for s, r in bres[k] if s["inject"]["op"] == op]
                    if rs:
                        t, why = tally(rs), {}
                        for r in rs:
                            if r["outcome"] == "pass":
                                why[r.get("metric_verdict")] = why.get(r.get("metric_verdict"), 0) + 1
                        L.append(f"| `{op}` | {med:g} µs | ×{f:g} | {t['regression']} | {t['no-decision']} | {t['pass']} | "
                                 + ", ".join(f"{v} {c}" for v, c in why.items()) + " |")

    L += ["", "### (c) Real regressions, runs subsampled", "",
          "| regression | data | runs a side | draws | ❌ | ⚠️ | ✅ | other | a ✅ draw |", "|---|---|--:|--:|--:|--:|--:|--:|---|"]
    for (label, mode, runs), rows in grouped(specs, results, "c", lambda i: i[1:4]).items():
        t = tally([r for _, r in rows])
        example = next((f"`{draw_text(s)}`: {r.get('line', '')}" for s, r in rows if r["outcome"] == "pass"), "")
        L.append(f"| {label} | {MODE_NAMES[mode]} | {runs} | {t['n']} | {pct(t['regression'], t['n'])} | "
                 f"{pct(t['no-decision'], t['n'])} | {pct(t['pass'], t['n'])} | {t['other']} | {cell(example[:260])} |")

    same = [(s, r) for s, r in zip(specs, results) if s["id"][0].startswith("a-") and r["outcome"] == "regression"]
    misses = [(s, r) for s, r in zip(specs, results) if s["id"][0] == "b" and s["id"][2] in ("op", "e2e")
              and s["id"][3] >= 1.5 and r["outcome"] == "pass"]
    misses.sort(key=lambda sr: -sr[0]["runs"])  # most runs first: the rule allows fewest misses there
    L += ["", "### Cases to look at", ""]
    for title, rows in ((f"Same code, ❌ REGRESSION ({len(same)})", same),
                        (f"×1.5 or ×2 injected into an op ≥ 3 µs or e2e, ✅ PASS ({len(misses)}; the 12 with most runs)", misses[:12])):
        L += [f"**{title}**", ""]
        for s, r in rows:
            what = s["id"][1] if s["kind"] == "direct" else draw_text(s)
            ratio = r.get("metric_ratio") or [None]
            inj = (f" — `{'/'.join(str(k) for k in s['id'])}`, {s['inject'].get('op', 'latency')} ×{s['inject']['factor']:g}"
                   + (f", its estimate ×{ratio[0]:.3g} ({r.get('metric_verdict')})" if ratio[0] else "")) if s.get("inject") else ""
            L.append(f"- `{what}`{inj}: {r.get('line', '')}")
        L.append("")

    L += ["### Targets", "", "| target | measured | result |", "|---|---|---|"]
    L += [f"| {name} | {measured} | {ok} |" for name, measured, ok in targets]
    errors = [r for r in results if r["outcome"] == "error"]
    if errors:
        L += ["", f"{len(errors)} trials ended without a JSON report; the first: `{errors[0].get('error', '')}`"]
    return "\n".join(L) + "\n"


def evaluate_targets(pools, specs, results):
    out = []
    bres = {k: [r for _, r in v] for k, v in grouped(specs, results, "b", lambda i: i[1:6]).items()}
    for target, scored in (("op", True), ("opq", False), ("e2e", False)):
        cells = [(k, tally(rs)) for k, rs in sorted(bres.items()) if k[1] == target and k[2] >= 1.5]
        bad = [f"`{k[0]}` ×{k[2]:g} {k[3]} runs {k[4]} steps: ✅ {t['pass']}/{t['n']}" for k, t in cells
               if t["pass"] > 0.05 * t["n"]]
        if cells:
            out.append((f"✅ ≤ 5% of trials at ×1.5 and ×2, every size: {TARGET_NAMES[target]}",
                        f"{len(cells) - len(bad)} of {len(cells)} cells" + (f"; above 5%: {'; '.join(bad)}" if bad else ""),
                        ("met" if not bad else "NOT MET") if scored else "no target"))
    for target, scored in (("op", True), ("opq", False), ("e2e", True)):
        series, rises = {}, []
        for (pool, tg, factor, runs, steps), rs in bres.items():
            if tg == target and factor >= 1.2:
                series.setdefault((pool, factor, steps), {})[runs] = tally(rs)
        for (pool, factor, steps), by_runs in sorted(series.items()):
            sizes = sorted(by_runs)
            for i, r1 in enumerate(sizes):
                for r2 in sizes[i + 1:]:
                    a, b = by_runs[r1], by_runs[r2]
                    if b["pass"] * a["n"] > a["pass"] * b["n"]:
                        p = fisher_greater(a["pass"], a["n"], b["pass"], b["n"])
                        rises.append((p, f"`{pool}` ×{factor:g} {steps} steps: ✅ {a['pass']}/{a['n']} at {r1} runs → "
                                         f"{b['pass']}/{b['n']} at {r2} (p {p:.2g})"))
        if series:
            sig = [text for p, text in sorted(rises) if p <= 0.05]
            out.append((f"✅ share does not rise with the number of runs (×1.2 and above): {TARGET_NAMES[target]}",
                        f"{len(rises)} rises, {len(sig)} significant (one-sided Fisher p ≤ 0.05)"
                        + (": " + "; ".join(sig) if sig else ""), ("met" if not sig else "NOT MET") if scored else "no target"))
    same = [(s, r) for s, r in zip(specs, results) if s["id"][0].startswith("a-")]
    t = tally([r for _, r in same])
    lo, hi = clopper_pearson(t["regression"], t["n"])
    groups = grouped(specs, results, "a-split", lambda i: i[1:4])
    high = [f"`{k[0]}` {MODE_NAMES[k[1]]} {k[2]} runs: {sum(r['outcome'] == 'regression' for _, r in rows)}/{len(rows)}"
            for k, rows in groups.items()
            if clopper_pearson(sum(r["outcome"] == "regression" for _, r in rows), len(rows))[0] > 0.05]
    out.append(("exit 1 on same-code data ≤ 5%", f"all: {rate(t['regression'], t['n'])}; 95% CI {100 * lo:.1f}–{100 * hi:.1f}%"
                + (f"; split groups whose CI lies above 5%: {'; '.join(high)}" if high else ""),
                ("met" if t["regression"] <= 0.05 * t["n"] else "NOT MET") + (" overall, NOT MET in those groups" if high else "")))
    for label, pred, scored in (("each side ≥ 3 processes", lambda s: s["runs"] >= 3, True),
                                ("1–2 processes a side", lambda s: s["runs"] < 3, False)):
        rs = [r for s, r in same if pred(s)]
        t = tally(rs)
        out.append((f"⚠️ NO DECISION on same-code data ≤ 15%, {label}", rate(t["no-decision"], t["n"]),
                    ("met" if t["no-decision"] <= 0.15 * t["n"] else "NOT MET") if scored else "no target"))
    return out


def build_trial(specs, pools, trial_id, out):
    spec = next((s for s in specs if "/".join(str(k) for k in s["id"]) == trial_id), None)
    if spec is None:
        raise SystemExit(f"decision.py: no trial {trial_id} in this plan (check --seed and --quick)")
    _init_worker(pools, None, None)
    base, head = os.path.join(out, "base"), os.path.join(out, "head")
    if spec["kind"] == "direct":
        base, head = spec["base"], spec["head"]
    else:
        _materialize(base, spec["base_pool"], spec["base"], spec["e2e"])
        _materialize(head, spec["head_pool"], spec["head"], spec["e2e"], spec.get("inject"))
        print(f"# {draw_text(spec)}" + (f", injected {spec['inject']}" if spec.get("inject") else ""))
    print(f"neuron-gate compare {base} {head}")


BEGIN, END = "<!-- bench/decision.py: begin -->", "<!-- bench/decision.py: end -->"


def write_between_markers(path, text):
    """Replaces what lies between the markers in path (hand-written text around them stays); a file without
    them gets a title and the markers."""
    doc = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Decision quality\n\n" + BEGIN + "\n" + END + "\n"
    if BEGIN not in doc or END not in doc:
        doc += "\n" + BEGIN + "\n" + END + "\n"
    head, rest = doc.split(BEGIN, 1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + BEGIN + "\n" + text + rest[rest.index(END):])


def machine():
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo", encoding="utf-8")
                if line.startswith("model name")), "unknown CPU") if os.path.exists("/proc/cpuinfo") else "unknown CPU"
    return f"{os.cpu_count()} cores ({cpu}), {platform.platform()}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "src", "neuron-gate"))
    parser.add_argument("--quick", action="store_true", help="fewer trials and only the key cells (a few minutes)")
    parser.add_argument("--out", help="write the Markdown report here (e.g. docs/decision-quality.md); else stdout")
    parser.add_argument("--work", default=os.path.join("/tmp", "neuron-gate-decision"),
                        help="scratch and cache folder (the generated MLP profiles are kept here)")
    parser.add_argument("--jobs", type=int, default=2, help="compares at once (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--torch-python", default="/usr/bin/python3", help="python with torch, for gen_mlp.py")
    parser.add_argument("--build-trial", nargs=2, metavar=("ID", "DIR"),
                        help="write one trial's base and head into DIR (ID as in decision-results.json, joined "
                             "by '/', e.g. a-split/rmsnorm3/traces/3/0; same --seed and --quick) and exit")
    parser.add_argument("--from-results", metavar="JSON",
                        help="render the page again from a saved decision-results.json (same --seed, --quick, "
                             "--work) without running a compare")
    args = parser.parse_args()

    binary = os.path.abspath(args.binary)
    os.makedirs(args.work, exist_ok=True)
    mlp_dir, mlp_gen = ensure_mlp(os.path.abspath(args.work), args.torch_python)
    pools = load_pools(mlp_dir)
    _init_worker(pools, binary, None)
    saved = None
    if args.from_results:
        with open(args.from_results, encoding="utf-8") as f:
            saved = json.load(f)
        ops_by_pool, material = saved["ops"], saved["material"]
    else:
        ops_by_pool, material = {}, {}
        for pool in ["mlp", "rmsnorm"]:
            if pool in pools:
                ops_by_pool[pool], material[pool] = material_ops(binary, pools, pool, args.work)

    plan = PLANS["quick" if args.quick else "full"]
    specs = plan_same_code(pools, plan["a"], args.seed, mlp_dir, plan["a_runs"])
    specs += plan_slowdowns(pools, ops_by_pool, plan["b"], args.seed, plan["cells"], plan["factors"])
    specs += plan_regression(pools, plan["c"], args.seed, plan["c_runs"])
    if args.build_trial:
        return build_trial(specs, pools, *args.build_trial)
    if saved:
        meta, results = saved["meta"], saved["trials"]
        if [list(s["id"]) for s in specs] != [r["id"] for r in results]:
            raise SystemExit("decision.py: the saved trials are not this plan's (check --seed, --quick, --work)")
    else:
        meta, results = run_all(args, binary, pools, specs, mlp_gen)
        with open(os.path.join(args.work, "decision-results.json"), "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "material": material, "ops": ops_by_pool,
                       "trials": [{**r, "id": list(s["id"])} for s, r in zip(specs, results)]},
                      f, indent=0, ensure_ascii=False)
    targets = evaluate_targets(pools, specs, results)
    text = render(meta, pools, ops_by_pool, specs, results, targets)
    if args.out:
        write_between_markers(args.out, text)
        print(f"decision.py: wrote {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    print("\nTargets:", file=sys.stderr)
    for name, measured, ok in targets:
        print(f"  {ok:>8}  {name}: {measured[:300]}", file=sys.stderr)


def run_all(args, binary, pools, specs, mlp_gen):
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    if not version:
        raise SystemExit(f"decision.py: {binary} --version printed nothing")
    trial_root = os.path.join(os.path.abspath(args.work), "trials")
    os.makedirs(trial_root, exist_ok=True)
    load, started, results = " ".join(f"{v:.2f}" for v in os.getloadavg()), time.time(), []
    print(f"decision.py: {len(specs)} compares, {args.jobs} at once", file=sys.stderr, flush=True)
    with multiprocessing.get_context("fork").Pool(args.jobs, initializer=_init_worker,
                                                  initargs=(pools, binary, trial_root)) as workers:
        for i, res in enumerate(workers.imap(run_trial, specs, chunksize=1)):
            results.append(res)
            if (i + 1) % 200 == 0 or i + 1 == len(specs):
                el = time.time() - started
                print(f"  {i + 1}/{len(specs)} in {el:.0f} s (eta {el / (i + 1) * (len(specs) - i - 1):.0f} s)",
                      file=sys.stderr, flush=True)
    cmd = "python3 bench/decision.py " + " ".join(os.path.relpath(a, ROOT) if a.startswith(ROOT) else a
                                                  for a in sys.argv[1:])
    meta = {"command": cmd, "binary": os.path.relpath(binary, ROOT) if binary.startswith(ROOT) else binary,
            "version": version, "quick": args.quick, "seed": args.seed, "jobs": args.jobs, "machine": machine(),
            "load": load, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "duration": f"{(time.time() - started) / 60:.1f} min", "trials": len(specs),
            "mlp_gen": f"{mlp_gen / 60:.1f} min" if mlp_gen else None}
    return meta, results


if __name__ == "__main__":
    main()
