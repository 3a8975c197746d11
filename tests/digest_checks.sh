#!/usr/bin/env bash
# Issue 20 item 3: `compare` on digests gives byte-identical reports (JSON, Markdown, HTML, JUnit,
# annotations) and exit codes to `compare` on the profiles they were made of.
#   pairs      every pair of the bundled examples (docs/user-guide.md "Digests": A->A2 0, A->Areg 1, A->B 1, A->C 0, A->A_sched 3,
#              A->A_8x512 3) and of tests/data (two ranks, new call site, traces only, Kineto GPU traces),
#              digest on either side and on both.
#   hostile    a truncated, a newer-version and an ill-typed digest each exit 2 naming the file.
#   ranks      a 4-rank profile digested rank by rank and combined gives the whole profile's reports.
#   git-state  a digest carries its profile's commit, branch and dirty state to wherever it is compared.
#   pair B H   (manual) one pair, e.g. ../shared/profiles/large-transformer against itself.
#   dir DIR    (manual) every pair of DIR/*/ A->X, e.g. ../shared/profiles/rmsnorm-4x512.
# usage: digest_checks.sh BINARY pairs|hostile|ranks|git-state|pair BASE HEAD|dir DIR
set -euo pipefail
binary=$1
case_name=$2
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-gate-digest-XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
compared=0

# digest_of SPEC: writes (once) and prints the digest of SPEC.
digest_of() {
  local out="$work/digests/$(echo "$1" | sha256sum | cut -c1-16).ngdigest"
  if [ ! -f "$out" ]; then
    mkdir -p "$work/digests"
    "$binary" digest "$1" -o "$out" > /dev/null
  fi
  echo "$out"
}

# run_compare OUTDIR BASE HEAD: every report to OUTDIR, the exit code to OUTDIR/exit.
run_compare() {
  local dir=$1; shift
  mkdir -p "$dir"
  set +e
  "$binary" compare "$@" --json "$dir/r.json" --markdown "$dir/r.md" --html "$dir/r.html" --junit "$dir/r.xml" \
    --annotations "$dir/r.annotations" --today 2026-12-02 > /dev/null 2> "$dir/err"
  echo $? > "$dir/exit"
  set -e
}

# check_pair BASE HEAD [EXPECTED_EXIT]: raw vs digests (head, base, both): identical reports.
check_pair() {
  local base=$1 head=$2 want=${3:-}
  local db dh
  db=$(digest_of "$base")
  dh=$(digest_of "$head")
  run_compare "$work/raw" "$base" "$head"
  [ -z "$want" ] || [ "$(cat "$work/raw/exit")" = "$want" ] ||
    { cat "$work/raw/err" >&2; fail "$base -> $head exited $(cat "$work/raw/exit"), expected $want"; }
  for sides in "$db $head" "$base $dh" "$db $dh"; do
    # shellcheck disable=SC2086
    run_compare "$work/dig" $sides
    for file in exit r.json r.md r.html r.xml r.annotations; do
      if [ -f "$work/raw/$file" ] || [ -f "$work/dig/$file" ]; then
        cmp -s "$work/raw/$file" "$work/dig/$file" ||
          { diff "$work/raw/$file" "$work/dig/$file" | head -20 >&2; cat "$work/dig/err" >&2;
            fail "$base -> $head on digests ($sides): $file differs"; }
      fi
    done
    rm -rf "$work/dig"
  done
  echo "same reports and exit $(cat "$work/raw/exit"): $base -> $head"
  rm -rf "$work/raw"
  compared=$((compared + 1))
}

expect_error() {  # expect_error DIGEST TEXT: compare with it exits 2 and the message holds TEXT and its name
  set +e
  "$binary" compare "$1" "$1" --quiet 2> "$work/err.txt"
  local got=$?
  set -e
  [ "$got" = 2 ] || fail "compare $1 exited $got, expected 2"
  grep -qF "$(basename "$1")" "$work/err.txt" || { cat "$work/err.txt" >&2; fail "the error does not name $1"; }
  grep -qF "$2" "$work/err.txt" || { cat "$work/err.txt" >&2; fail "the error for $1 does not say \"$2\""; }
}

case "$case_name" in
pairs)
  ex="$root/examples/rmsnorm-4x512"
  check_pair "$ex/A" "$ex/A2" 0
  check_pair "$ex/A" "$ex/Areg" 1
  check_pair "$ex/A" "$ex/B" 1
  check_pair "$ex/A" "$ex/C" 0
  check_pair "$ex/A" "$ex/A_sched" 3
  check_pair "$ex/A" "$ex/A_8x512" 3
  data="$root/tests/data"
  check_pair "$data/profiles/two-ranks/base" "$data/profiles/two-ranks/head" 1
  check_pair "$data/profiles/new-call-site/A" "$data/profiles/new-call-site/Abias"
  check_pair "$data/profiles/traces-only/A" "$data/profiles/traces-only/A_slow"
  check_pair "$data/profiles/traces-only/LN" "$data/profiles/traces-only/LNbig"
  check_pair "$data/corpus/H06-trace-compare-base.json.gz" "$data/corpus/H07-trace-compare-test.json.gz"
  check_pair "$data/corpus/K1" "$data/corpus/K2"
  check_pair "$data/unattributed/base" "$data/unattributed/doubled" 1
  [ "$compared" -ge 12 ] || fail "only $compared pairs compared"
  ;;
hostile)
  good=$(digest_of "$root/examples/rmsnorm-4x512/A2")
  head -c 2000 "$good" > "$work/truncated.ngdigest"
  expect_error "$work/truncated.ngdigest" "gzip"
  gzip -dc "$good" | sed 's/"version":1,/"version":7,/' | gzip > "$work/newer.ngdigest"
  expect_error "$work/newer.ngdigest" "digest format version 7 was written by a newer neuron-gate"
  gzip -dc "$good" | sed 's/"samples_from_tables":false/"samples_from_tables":"no"/' | gzip > "$work/typed.ngdigest"
  expect_error "$work/typed.ngdigest" '"side.samples_from_tables" must be true or false, not "no"'
  # A digest is never overwritten by a report or another digest of itself.
  set +e
  "$binary" digest "$good" -o "$good" > /dev/null 2> "$work/err.txt"
  got=$?
  set -e
  [ "$got" = 2 ] && grep -qF "refusing to write a digest over an input file" "$work/err.txt" || fail "digest over its input: exit $got"
  echo "hostile digests: exit 2 naming the file"
  ;;
ranks)
  # Issue 20 item 3: a 4-rank profile (tests/data/profiles/four-ranks, one folder per rank as a CI matrix job
  # writes it) digested rank by rank gives, combined, the reports of the whole profile; so does one digest
  # made of the rank digests.
  four="$root/tests/data/profiles/four-ranks"
  run_compare "$work/raw" "$four/base" "$four/head"
  [ "$(cat "$work/raw/exit")" = 0 ] || { cat "$work/raw/err" >&2; fail "four-ranks base -> head exited $(cat "$work/raw/exit"), expected 0"; }
  for side in base head; do
    mkdir -p "$work/$side-digests"
    for rank in 0 1 2 3; do
      "$binary" digest "$four/$side/rank-$rank" -o "$work/$side-digests/rank-$rank.ngdigest" > /dev/null
    done
    "$binary" digest "$work/$side-digests" -o "$work/$side-all.ngdigest" > /dev/null
  done
  for sides in "$work/base-digests $work/head-digests" "$work/base-all.ngdigest $work/head-digests" "$four/base $work/head-all.ngdigest"; do
    # shellcheck disable=SC2086
    run_compare "$work/dig" $sides
    for file in exit r.json r.md r.html r.xml r.annotations; do
      cmp -s "$work/raw/$file" "$work/dig/$file" ||
        { diff "$work/raw/$file" "$work/dig/$file" | head -20 >&2; cat "$work/dig/err" >&2; fail "four ranks ($sides): $file differs"; }
    done
    rm -rf "$work/dig"
  done
  grep -q '\[rank 3\]' "$work/raw/r.md" || fail "the four-rank report names no rank"
  # The same rank twice is refused, naming both digests.
  cp "$work/base-digests/rank-1.ngdigest" "$work/base-digests/rank-1-again.ngdigest"
  expect_error "$work/base-digests" "each rank's digest may be given once"
  echo "four ranks digested one by one and combined: the whole profile's reports (exit 0)"
  ;;
git-state)
  # The digest records the git state of the profile's repository when it is made; compare shows that state
  # for the side wherever the digest is (here copied out of every repository), never one looked up there.
  command -v git > /dev/null || { echo "no git: skipped"; exit 0; }
  repo="$work/repo"
  mkdir -p "$repo/perf"
  cp -r "$root/examples/rmsnorm-4x512/A2" "$repo/perf/A2"
  git -C "$repo" init -q -b main
  git -C "$repo" add perf
  git -C "$repo" -c user.name=t -c user.email=t@t -c commit.gpgsign=false commit -q -m "profile A2 <b>"
  commit=$(git -C "$repo" rev-parse HEAD)
  "$binary" digest "$repo/perf/A2" -o "$work/a2.ngdigest" > /dev/null
  "$binary" digest "$repo/perf/A2" -o "$work/a2-nogit.ngdigest" --no-git > /dev/null
  rm -rf "$repo"
  mkdir -p "$work/elsewhere"
  cp "$work/a2.ngdigest" "$work/a2-nogit.ngdigest" "$work/elsewhere/"
  run_compare "$work/out" "$work/elsewhere/a2.ngdigest" "$work/elsewhere/a2-nogit.ngdigest"
  python3 - "$work/out/r.json" "$commit" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
commits = report["provenance"]["git_commits"]
assert [c["side"] for c in commits] == ["base"], commits
assert commits[0]["commit"] == sys.argv[2] and commits[0]["branch"] == "main", commits
assert commits[0]["summary"] == "profile A2 <b>" and commits[0]["dirty"] is False, commits
PY
  echo "git state recorded at digest time: base $commit (main), head none (--no-git)"
  ;;
pair)
  check_pair "$3" "$4"
  ;;
dir)
  dir=$3
  for head in "$dir"/*/; do
    [ "$head" = "$dir/A/" ] || check_pair "$dir/A" "${head%/}"
  done
  ;;
*)
  fail "unknown case $case_name"
  ;;
esac
