#!/usr/bin/env bash
# ctest python-capture-compare: the capture helper, installed in a venv with Debian's torch (CPU), captures
# a small model with `python -m neuron_gate_capture`, and the neuron-gate binary compares the output:
#   same code (two identical checkouts, 6 runs alternating) -> no regression  (exit 0)
#   a head doing 3x the work per step (1 run a side)        -> regression      (exit 1, latency ~3x)
#   base against the same code at another input shape        -> not comparable  (exit 3, from the manifest)
#   base against the same code on 2 intra-op threads          -> not comparable  (exit 3, intra_op_threads)
#   base against the other shape with head's manifest removed -> not comparable  (exit 3: head's evidence
#                                                                fails closed; it passed unverified before)
# Usage: capture_compare.sh NEURON_GATE_BINARY VENV_PYTHON WORK_DIR
set -euo pipefail
binary=$1
python=$2
work=$3
rm -rf "$work"
mkdir -p "$work/base" "$work/same" "$work/slow"

# The user's module: setup() makes the inputs, step() is one step, calling a helper module of its own
# checkout (so the test also checks that --interleave imports each side's `layers`, not base's twice). One
# intra-op thread, so that a variant does not fight the machine's other work over the 2 cores.
cat > "$work/base/model.py" <<'PY'
import torch
from layers import block

def setup(rows=32, cols=128):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    return {"x": torch.randn(rows, cols), "w": torch.randn(cols, cols) / cols ** 0.5}

def step(x, w):
    return block(x, w)
PY
cat > "$work/base/layers.py" <<'PY'
import torch

def block(x, w):
    return torch.tanh(x @ w) @ w.t()
PY
cp "$work/base/model.py" "$work/base/layers.py" "$work/same/"
cp "$work/base/model.py" "$work/slow/"
# The slower head: the same maths done three times per step.
cat > "$work/slow/layers.py" <<'PY'
import torch

def block(x, w):
    for _ in range(2):
        torch.tanh(x @ w) @ w.t()
    return torch.tanh(x @ w) @ w.t()
PY

capture=("$python" -m neuron_gate_capture --wait 1 --warmup 1 --active 3 --repeat 3
         --timing-warmup 20 --repetitions 80 --calls-per-sample 20 --work-per-step 32 --operating-point rows32)

expect() {  # expect EXIT NAME COMMAND...: runs COMMAND, fails unless it exits with EXIT
  local want=$1 name=$2
  shift 2
  local got=0
  "$@" > "$work/$name.out" 2>&1 || got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL $name: exit $got, expected $want" >&2
    cat "$work/$name.out" >&2
    exit 1
  fi
  echo "ok $name (exit $got)"
}

cd "$work"
# Same code: 6 runs a side, base and head alternating in separate processes (the paired test needs 6 pairs
# for latency and throughput gating together); the others 1 run a side (still two processes).
expect 0 capture-same "${capture[@]}" base/model.py --out profiles/same/base --interleave same/model.py \
  --interleave-out profiles/same/head --runs 6
expect 0 capture-slow "${capture[@]}" base/model.py --out profiles/slow/base --interleave slow/model.py \
  --interleave-out profiles/slow/head
expect 0 capture-shape "${capture[@]/rows32/rows64}" base/model.py --out profiles/shape/base --interleave same/model.py \
  --interleave-out profiles/shape/head --arg rows=64

expect 0 capture-threads "${capture[@]}" same/model.py --out profiles/threads/head --threads 2

expect 0 compare-same "$binary" compare profiles/same/base profiles/same/head --no-git --json same.json
expect 1 compare-slow "$binary" compare profiles/slow/base profiles/slow/head --no-git --json slow.json
expect 3 compare-shape "$binary" compare profiles/slow/base profiles/shape/head --no-git --json shape.json
expect 3 compare-threads "$binary" compare profiles/slow/base profiles/threads/head --no-git --json threads.json
rm -rf profiles/no-manifest && cp -r profiles/shape/head profiles/no-manifest && rm profiles/no-manifest/neuron-gate.json
expect 3 compare-no-manifest "$binary" compare profiles/slow/base profiles/no-manifest --no-git --json no-manifest.json

# What the reports say, beyond the exit codes.
"$python" - <<'PY'
import json

def load(name):
    with open(name) as f:
        return json.load(f)

def metric(report, name):
    return next(m for m in report["metrics"] if m["name"] == name and m["class"] == "end_to_end")

same, slow, shape, threads = load("same.json"), load("slow.json"), load("shape.json"), load("threads.json")
conditions = {c["name"]: c for c in same["conditions"]}
assert conditions["manifest.timing.interleaved"]["base"] == "false", conditions["manifest.timing.interleaved"]
for name, value in (("intra_op_threads", "1"), ("grad_mode", "enabled"), ("timing.bursts", "4"),
                    ("timing.gate", "latency")):
    row = conditions["manifest." + name]
    assert row["matches"] and row["base"] == value, row
cpu = metric(same, "thread_cpu_time")  # explains, never gates
assert cpu["family"] == "end-to-end (explains)" and not cpu["gating"] and cpu["base"]["n"] == 6, cpu
assert same["outcome"] != "REGRESSION", same["outcome"]
flagged = [m["name"] for m in same["metrics"] if m["verdict"] == "REGRESSED"]
assert not flagged, flagged  # same code: no op, no end-to-end metric flagged
assert conditions["manifest.workload"]["matches"], conditions["manifest.workload"]
latency = metric(same, "latency")
assert latency["base"]["n"] == 6 and latency["head"]["n"] == 6, latency  # run medians, tested in pairs
assert latency["test"]["name"] == "wilcoxon-signed-rank", latency["test"]
# The guarantee is no false regression; the estimate itself moves with this VM's between-process noise
# (paired same-code ratios of 0.999 alone on a quiet machine, 1.29 in a fresh clone's CI run).
assert latency["verdict"] != "REGRESSED" and 0.5 < latency["ratio"] < 2.0, latency
print("same: outcome %s, latency ratio %.3f (%s)" % (same["outcome"], latency["ratio"], latency["verdict"]))

latency = metric(slow, "latency")
assert latency["verdict"] == "REGRESSED" and latency["gating"], latency
# 3x the maths per step; the per-call overhead does not triple, and a shared machine moves it: 1.94 was seen
# in a fresh clone's CI run, ~2.5-3 on a quiet machine.
assert 1.5 < latency["ratio"] < 6.0, latency
throughput = metric(slow, "throughput")
assert throughput["unit"] == "samples/s" and throughput["verdict"] == "REGRESSED", throughput
print("slow: outcome %s, latency ratio %.3f, throughput ratio %.3f" % (slow["outcome"], latency["ratio"],
                                                                          throughput["ratio"]))

differing = {c["name"]: (c["base"], c["head"]) for c in shape["conditions"] if not c["matches"]}
assert differing["manifest.inputs[x].shape"] == ("[32,128]", "[64,128]"), differing
assert differing["manifest.operating_point"] == ("rows32", "rows64"), differing
assert set(differing) == {"manifest.inputs[x].shape", "manifest.operating_point"}, differing
print("shape: outcome %s, differing %s" % (shape["outcome"], sorted(differing)))

differing = {c["name"]: (c["base"], c["head"]) for c in threads["conditions"] if not c["matches"]}
assert differing == {"manifest.intra_op_threads": ("1", "2")}, differing
print("threads: outcome %s, differing %s" % (threads["outcome"], sorted(differing)))

differing = {c["name"]: (c["base"], c["head"]) for c in load("no-manifest.json")["conditions"] if not c["matches"]}
assert differing["manifest.operating_point"] == ("rows32", "not recorded"), differing
assert differing["manifest.intra_op_threads"] == ("1", "not recorded"), differing
print("no-manifest: differing %d rows, all base's manifest fields" % len(differing))
PY
