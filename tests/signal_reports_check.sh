#!/usr/bin/env bash
# A signal while compare writes its reports leaves no temporary file and the old reports untouched:
# compare writes --json, --html and --junit into temporary files, then blocks opening --markdown, a FIFO
# that nobody reads; SIGTERM (and SIGINT, SIGHUP) then ends it by that signal, and the folder must hold the
# old reports only. Then an unblocked run replaces all of them.
# usage: signal_reports_check.sh BINARY
set -uo pipefail
binary=$1
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-gate-signal-XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
ex=examples/rmsnorm-4x512
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
for signal in TERM INT HUP; do
  out="$work/$signal"
  mkdir -p "$out"
  for f in r.json r.html r.xml; do echo old > "$out/$f"; done
  mkfifo "$out/r.md"
  # A background job of a non-interactive shell starts with SIGINT ignored; `exec` in a subshell that
  # resets it (trap - INT) gives the binary the default disposition, as from a terminal.
  (trap - INT; exec "$binary" compare "$ex/A" "$ex/Areg" --no-git --quiet --json "$out/r.json" --html "$out/r.html" \
    --junit "$out/r.xml" --markdown "$out/r.md") 2> "$out/err" &
  pid=$!
  for _ in $(seq 300); do
    [ "$(find "$out" -name '.neuron-gate-*.tmp' | wc -l)" -ge 3 ] && break
    sleep 0.05
  done
  [ "$(find "$out" -name '.neuron-gate-*.tmp' | wc -l)" -ge 3 ] || fail "$signal: the temporary files never appeared"
  kill "-$signal" "$pid"
  wait "$pid"
  rc=$?
  expected=$((128 + $(kill -l "$signal")))
  [ "$rc" = "$expected" ] || fail "$signal: exit $rc, expected $expected (ended by the signal)"
  left=$(find "$out" -name '.neuron-gate-*' | wc -l)
  [ "$left" = 0 ] || fail "$signal: $left temporary file(s) left: $(ls -A "$out")"
  for f in r.json r.html r.xml; do
    [ "$(cat "$out/$f")" = old ] || fail "$signal: $f was replaced by a run that was stopped"
  done
  rm -f "$out/r.md"
done
out="$work/whole"
mkdir -p "$out"
for f in r.json r.html r.xml r.md; do echo old > "$out/$f"; done
"$binary" compare "$ex/A" "$ex/Areg" --no-git --quiet --json "$out/r.json" --html "$out/r.html" --junit "$out/r.xml" \
  --markdown "$out/r.md"
[ $? = 1 ] || fail "the unblocked run did not exit 1 (a regression)"
for f in r.json r.html r.xml r.md; do
  [ "$(cat "$out/$f")" != old ] || fail "the unblocked run left $f old"
done
[ "$(find "$out" -name '.neuron-gate-*' | wc -l)" = 0 ] || fail "the unblocked run left a temporary file"
if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "signal_reports_check: ok"
