#!/usr/bin/env bash
# The hostile-names fixture through every renderer (issue 11 / issue 15): writes the fixture
# (tests/report/make_hostile_fixture.py: copies of the bundled example traces with hostile and with clean
# op, metric, manifest, file and folder names), runs the binary on both variants with every output, and
# checks the results:
#   check_hostile.py           JSON (valid UTF-8, parses, round-trips), JUnit (Python's XML parser), HTML
#                              (the clean report's elements, no <img>/onerror/comment), stdout, stderr,
#                              `inspect` and `calibrate` text, the --format terminal summary off and on a
#                              terminal (no control character or bidi control, no workflow command line;
#                              on a terminal only the renderer's own colours), annotations (one escaped workflow command a line; the input
#                              error's annotation naming the broken file on one line)
#   check_hostile_markdown.mjs the Markdown as GFM (markdown-it from npm): the clean report's headings,
#                              table rows, links and raw HTML exactly; no @mention, no #123
#
# Usage: check_hostile.sh NEURON_GATE_BINARY SOURCE_DIR WORK_DIR
# Prints each check and a final "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

if [ $# -ne 3 ]; then
  echo "usage: check_hostile.sh NEURON_GATE_BINARY SOURCE_DIR WORK_DIR" >&2
  echo "0 passed, 1 failed"
  exit 2
fi
binary="$1"
source_dir="$(cd "$2" && pwd)"
work="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mkdir -p "$work"
work="$(cd "$work" && pwd)"

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok     - $1"; }
fail() { failed=$((failed + 1)); echo "FAILED - $1"; }
tally() {
  local last
  last="$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -n 1)"
  if [ -z "$last" ]; then
    fail "$2 printed no result line"
    return
  fi
  passed=$((passed + $(echo "$last" | cut -d' ' -f1)))
  failed=$((failed + $(echo "$last" | cut -d' ' -f3)))
}
expect_code() { # expect_code WHAT EXPECTED ACTUAL
  if [ "$3" -eq "$2" ]; then pass "$1 (exit $3)"; else fail "$1: exit $3, expected $2"; fi
}

fixture="$work/fixture"
if python3 "$here/make_hostile_fixture.py" "$source_dir" "$fixture"; then
  pass "fixture written"
else
  fail "make_hostile_fixture.py"
fi

if "$binary" compare --help 2>/dev/null | grep -q -- '--annotations'; then
  pass "compare has --annotations"
else
  fail "compare has --annotations"
fi
for variant in hostile clean; do
  args=(compare "$fixture/$variant/base" "$fixture/$variant/head" --no-git --allow-mismatch manifest.model_version
        --json "$work/$variant.json" --html "$work/$variant.html" --junit "$work/$variant.junit.xml")
  args+=(--annotations "$work/$variant.annotations")
  "$binary" "${args[@]}" > "$work/$variant.md" 2> "$work/$variant.stderr"
  expect_code "compare on $variant names writes every report" 1 $?
  cp "$work/$variant.md" "$work/$variant.stdout"
done
# The compact terminal summary (--format terminal), off a terminal (no colour) and on one: a pseudo-
# terminal from Python's pty module, so the binary sees a tty and colours its own lines.
for variant in hostile clean; do
  "$binary" compare "$fixture/$variant/base" "$fixture/$variant/head" --no-git --allow-mismatch manifest.model_version \
    --format terminal > "$work/$variant.terminal" 2>> "$work/$variant.stderr"
  expect_code "compare --format terminal on $variant names" 1 $?
  python3 - "$work/$variant.tty" "$binary" compare "$fixture/$variant/base" "$fixture/$variant/head" --no-git \
    --allow-mismatch manifest.model_version <<'PTY' 2>> "$work/$variant.stderr"
import os, pty, sys
out, argv = sys.argv[1], sys.argv[2:]
env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
pid, fd = pty.fork()
if pid == 0:
    os.execve(argv[0], argv, env)
data = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
_, status = os.waitpid(pid, 0)
open(out, "wb").write(data)
sys.exit(os.waitstatus_to_exitcode(status))
PTY
  expect_code "compare on a terminal (colour) on $variant names" 1 $?
done
"$binary" inspect "$fixture/hostile/head" > "$work/inspect.out" 2> "$work/inspect.err"
expect_code "inspect on hostile names" 0 $?
"$binary" calibrate "$fixture/hostile/base" --splits 5 > "$work/calibrate.out" 2>> "$work/inspect.err"
expect_code "calibrate on hostile names" 0 $?
"$binary" compare "$fixture/clean/base" "$fixture/broken/head" --no-git --annotations "$work/broken.annotations" \
  > /dev/null 2> "$work/broken.stderr"
expect_code "a cut trace named with LF + ::stop-commands:: is an input error" 2 $?
if grep -q "internal error" "$work"/*.stderr "$work/inspect.err"; then
  fail "no internal error: $(grep -h "internal error" "$work"/*.stderr "$work/inspect.err" | head -n 1)"
else
  pass "no internal error on any run"
fi
if grep -q "stop-commands" "$work/broken.stderr" && [ "$(wc -l < "$work/broken.stderr")" -eq 1 ]; then
  pass "the input error names the file on one line"
else
  fail "the input error names the file on one line: $(cat "$work/broken.stderr")"
fi

python3 "$here/check_hostile.py" "$work" > "$work/python.log" 2>&1
cat "$work/python.log"
tally "$work/python.log" "check_hostile.py"
node "$here/check_hostile_markdown.mjs" "$work/npm" "$work/hostile.md" "$work/clean.md" > "$work/markdown.log" 2>&1
cat "$work/markdown.log"
tally "$work/markdown.log" "check_hostile_markdown.mjs"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
