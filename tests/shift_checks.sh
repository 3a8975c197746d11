#!/usr/bin/env bash
# Issue 13 item 3 on a real trace, with the copies made at test time (standard-library Python only):
# the ResNet50 trace tests/data/corpus/K1 (6 steps) against
#   - a copy with every event's ts and dur scaled by 1.07 (tests/tools/scale_trace.py, a slower clock):
#     exactly one whole-run-shift interpretation, with the factor and most ops, and one open hypothesis
#     proposing the check; no op along the shift listed as its own regression;
#   - a copy with aten::clamp_min_'s self CPU time scaled by 1.3 (tests/tools/inject_slowdown.py): no
#     shift finding, and the op named as the largest change.
# usage: shift_checks.sh BINARY
set -euo pipefail
binary=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-gate-shift-XXXXXX")
trap 'rm -rf "$work"' EXIT
python=$(command -v python3)
trace=$(ls "$root"/tests/data/corpus/K1/*.pt.trace.json.gz)
name=$(basename "$trace")
mkdir -p "$work/base" "$work/scaled" "$work/one"
cp "$trace" "$work/base/"
"$python" "$root/tests/tools/scale_trace.py" "$trace" "$work/scaled/$name" --factor 1.07 > /dev/null
"$python" "$root/tests/tools/inject_slowdown.py" "$trace" "$work/one/$name" --op aten::clamp_min_ --factor 1.3 > /dev/null

set +e
"$binary" compare "$work/base" "$work/scaled" --no-git --json "$work/scaled.json" > /dev/null
"$binary" compare "$work/base" "$work/one" --no-git --json "$work/one.json" > /dev/null
set -e
"$python" - "$work/scaled.json" "$work/one.json" <<'PY'
import json, re, sys
scaled, one = (json.load(open(p)) for p in sys.argv[1:3])

shift = [l for l in scaled["interpretations"] if l.startswith("Whole-run shift: ")]
assert len(shift) == 1, shift
m = re.match(r"Whole-run shift: (\d+) of (\d+) ops large enough to tell moved together by \+(\d+\.\d)%", shift[0])
assert m, shift[0]
along, eligible, percent = int(m.group(1)), int(m.group(2)), float(m.group(3))
assert 3 * along >= 2 * eligible and eligible >= 50, (along, eligible)
assert 6.5 <= percent <= 7.5, percent
tests = [l for l in scaled["open_hypotheses"] if "interleave base and head runs on one instance" in l]
assert len(tests) == 1, scaled["open_hypotheses"]
single = [l for l in scaled["interpretations"] if re.match(r"`[^`]+` \((self CPU|device time)\) REGRESSED", l)]
assert not single, single  # every gating per-op regression here moved along the shift
print(f"scaled 1.07: {along} of {eligible} ops along +{percent}%, exit {scaled['exit_code']}")

assert not [l for l in one["interpretations"] if "Whole-run shift" in l], one["interpretations"]
ops = [m for m in one["metrics"] if m["class"] == "self_cpu" and m.get("ratio")]
top = max(ops, key=lambda m: abs(m["ratio"] - 1))
assert top["name"] == "aten::clamp_min_" and abs(top["ratio"] - 1.3) < 0.02, (top["name"], top["ratio"])
print(f"one op 1.3: no shift finding; largest change {top['name']} {top['ratio']:.3f}")
PY
