#!/usr/bin/env bash
# Issue 37 item 1 on real traces laid out as TorchNeuron writes them (NEURON-FORMATS.md §1.2), copies made at
# test time: the ResNet50 traces tests/data/corpus/K1 and K2 (no rank mark in them) as
# <side>/i-0abc123_pid_<pid>/<timestamp>/trace.json.gz, 3 process folders a side (K1, K2, K1 / K2, K1, K2),
# head's aten::cudnn_convolution device time x1.5 (tests/tools/inject_slowdown.py). Process folders are runs of one
# rank: inspect says runs 3, ranks 1, and the compare exits 1 with REGRESSION naming aten::cudnn_convolution (was NO
# DECISION, every op INSUFFICIENT, when each folder read as a rank).
# usage: pid_layout_checks.sh BINARY
set -euo pipefail
binary=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-gate-pid-XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
python=$(command -v python3)
fail() { echo "FAIL: $*" >&2; exit 1; }
k1=$(ls "$root"/tests/data/corpus/K1/*.pt.trace.json.gz)
k2=$(ls "$root"/tests/data/corpus/K2/*.pt.trace.json.gz)
for k in 1 2; do
  src=$([ $k = 1 ] && echo "$k1" || echo "$k2")
  "$python" "$root/tests/tools/inject_slowdown.py" "$src" "$work/K${k}slow.json.gz" --op aten::cudnn_convolution --factor 1.5 \
    --metric device > /dev/null
done
place() {  # place SIDE PID TIMESTAMP FILE
  mkdir -p "$work/$1/i-0abc123_pid_$2/$3"
  cp "$4" "$work/$1/i-0abc123_pid_$2/$3/trace.json.gz"
}
place base 4242 20261130_120000_000 "$k1"
place base 4250 20261130_120100_000 "$k2"
place base 4258 20261130_120200_000 "$k1"
place head 5151 20261130_130000_000 "$work/K2slow.json.gz"
place head 5159 20261130_130100_000 "$work/K1slow.json.gz"
place head 5167 20261130_130200_000 "$work/K2slow.json.gz"

"$binary" inspect "$work/base" > "$work/inspect.md"
grep -q '^- runs: 3$' "$work/inspect.md" || { cat "$work/inspect.md" >&2; fail "inspect does not say runs: 3"; }
grep -q '^- ranks: 1$' "$work/inspect.md" || fail "inspect does not say ranks: 1"
set +e
"$binary" compare "$work/base" "$work/head" --no-git --json "$work/r.json" > "$work/out.md" 2> "$work/err.txt"
code=$?
set -e
[ "$code" = 1 ] || { head -5 "$work/out.md" >&2; cat "$work/err.txt" >&2; fail "compare exited $code, expected 1"; }
grep -q '^## ❌ REGRESSION' "$work/out.md" || fail "no REGRESSION headline"
"$python" - "$work/r.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
conv = [m for m in report["metrics"] if m["name"] == "aten::cudnn_convolution" and m["class"] == "device"][0]
assert conv["verdict"] == "REGRESSED", conv["verdict"]
assert 1.4 < conv["ratio"] < 1.55, conv["ratio"]
assert not any("[rank" in m["name"] for m in report["metrics"]), "a rank label on one rank"
ranks = [c for c in report["conditions"] if c["name"] == "ranks"]
print("aten::cudnn_convolution device", conv["ratio"], conv["ratio_ci90"], "ranks", ranks)
PY
