#!/usr/bin/env bash
# Writes tests/data/profiles/paired-two-runs (and paired-three-runs/plus25, 3 runs a side): real captures by the capture helper (python/), 2 runs a side in
# one pairing session (base and head alternating, separate processes), of a 1-thread MLP step
# (relu(x @ w1) @ w2, x 32x256, w 256x256, plus tanh and sigmoid of 2048 values) on Debian's torch 1.13 CPU.
# Heads: `same` (the same code), `plus8` (an extra x @ W, W 256x40: +7-10% in thread CPU time, measured in
# 3 separate pairs of processes of 2,000 un-profiled calls each: 1.133 1.068 1.067), `plus25` (W 256x128:
# 1.249 1.247 1.225). Only the manifests and e2e.json are kept (the traces are not needed by the tests).
# Usage: tests/tools/make_paired_two_runs.sh   (from the repository root; about a minute on 2 cores)
set -euo pipefail
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
write_model() {  # write_model DIR EXTRA_COLS
  mkdir -p "$1"
  local extra=None line=pass
  if [ "$2" -gt 0 ]; then extra="torch.randn(256, $2) / 16"; line="x @ EXTRA"; fi
  cat > "$1/model.py" <<PY
import torch
torch.manual_seed(1)
EXTRA = $extra
SMALL_A = torch.randn(2048)
SMALL_B = torch.randn(2048)

def setup(rows=32, cols=256):
    torch.manual_seed(0)
    return {"x": torch.randn(rows, cols), "w1": torch.randn(cols, cols) / cols ** 0.5,
            "w2": torch.randn(cols, cols) / cols ** 0.5}

def step(x, w1, w2):
    y = torch.relu(x @ w1) @ w2
    torch.tanh(SMALL_A)
    torch.sigmoid(SMALL_B)
    $line
    return y
PY
}
write_model "$work/m/base" 0
write_model "$work/m/same" 0
write_model "$work/m/plus8" 40
write_model "$work/m/plus25" 128
capture() {  # capture OUT HEAD RUNS
  local out=$1 head=$2 runs=$3
  rm -rf "$work/$head"
  PYTHONPATH=$root/python /usr/bin/python3 -m neuron_gate_capture "$work/m/base/model.py" --out "$work/$head/base" \
    --interleave "$work/m/$head/model.py" --interleave-out "$work/$head/head" --runs "$runs" --threads 1 \
    --wait 1 --warmup 1 --active 5 --repeat 2 --timing-warmup 50 --repetitions 60 --calls-per-sample 10 \
    --operating-point mlp32 --workload model.py:step
  for side in base head; do
    mkdir -p "$out/$head/$side"
    cp "$work/$head/$side/neuron-gate.json" "$out/$head/$side/"
    for run in $(seq -f "run-%02g" 1 "$runs"); do
      mkdir -p "$out/$head/$side/$run"
      cp "$work/$head/$side/$run/e2e.json" "$out/$head/$side/$run/"
    done
  done
}
rm -rf "$root/tests/data/profiles/paired-two-runs" "$root/tests/data/profiles/paired-three-runs"
for head in same plus8 plus25; do
  capture "$root/tests/data/profiles/paired-two-runs" "$head" 2
done
capture "$root/tests/data/profiles/paired-three-runs" plus25 3
# one-process-same-code: base's run 3 against head's run 6 of a 6-run same-code session, the session dropped
# from the manifests (1 process a side, unpaired), traces kept. Head's run 6 happened to run 12% slower (the
# machine's other work): a re-capture gives other numbers; pick a split whose latency differs by 10-15.5%.
work_same=$work/same6
PYTHONPATH=$root/python /usr/bin/python3 -m neuron_gate_capture "$work/m/base/model.py" --out "$work_same/base" \
  --interleave "$work/m/same/model.py" --interleave-out "$work_same/head" --runs 6 --threads 1 \
  --wait 1 --warmup 1 --active 5 --repeat 2 --timing-warmup 50 --repetitions 60 --calls-per-sample 10 \
  --operating-point mlp32 --workload model.py:step
one=$root/tests/data/profiles/one-process-same-code
rm -rf "$one"
mkdir -p "$one/base" "$one/head"
cp -r "$work_same/base/run-03" "$one/base/run-01"
cp -r "$work_same/head/run-06" "$one/head/run-01"
for side in base head; do
  /usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("pairing", None)
json.dump(d, open(sys.argv[2], "w"), indent=1)' "$work_same/$side/neuron-gate.json" "$one/$side/neuron-gate.json"
done
