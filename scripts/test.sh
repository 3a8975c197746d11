#!/usr/bin/env bash
# Every test, as CI runs it (.ci/run runs exactly this), in stages whose times are printed at the end
# (docs/testing.md: what each stage protects, the measured times and the 25-minute budget):
#   dependencies     scripts/install-deps.sh --test (apt-get, only what is missing)
#   build            build/ with g++ (Release, -Werror; test sources at -O0)
#   tests            ctest in build/: unit, golden, CLI, scenario, install, action and report checks
#   other compilers  g++-11 compiles the library and the binary with -Werror -fsyntax-only (scripts/test-compilers.sh;
#                    clang's -Werror build is the sanitizer build below)
#   sanitizers       clang with ASan+UBSan and -Werror: unit tests, fuzz replay, the scenario tests
#                    labelled `sanitize`, a short fuzz pass; ThreadSanitizer on the threaded paths
#                    (scripts/sanitize.sh)
#
# Usage: scripts/test.sh [--fast] [--no-browser] [--no-extra-compilers] [--no-sanitizers]
#   --fast                the fast local loop: build, then only the tests labelled `fast` (unit and golden
#                         tests; under 3 minutes once built) — no other compilers, no sanitizers
#   --no-browser          skip the ctest tests labelled `network` (the report checks install Chromium and
#                         npm packages; the action validator comes from npm): for a machine without root
#                         or without the network
#   --no-extra-compilers  skip the g++-11 stage
#   --no-sanitizers       skip the sanitizer stage
# Needs root (or sudo) for apt-get when packages are missing: scripts/install-deps.sh --test.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0 browser=1 extra_compilers=1 sanitizers=1
for arg in "$@"; do
  case "$arg" in
    --fast) fast=1 extra_compilers=0 sanitizers=0 ;;
    --no-browser) browser=0 ;;
    --no-extra-compilers) extra_compilers=0 ;;
    --no-sanitizers) sanitizers=0 ;;
    -h | --help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/test.sh: unknown option $arg (--fast, --no-browser, --no-extra-compilers, --no-sanitizers)" >&2
       exit 2 ;;
  esac
done

stages=()
times_file=$(mktemp)
# children_cpu: sets $cpu to the CPU seconds (user+sys) of this shell's finished children so far. `times`
# must run in this shell, not in a command substitution (that reports the subshell's own, empty, times).
children_cpu() {
  times >"$times_file"
  cpu=$(tail -n 1 "$times_file" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/); printf "%d\n", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
}
# stage NAME COMMAND...: runs COMMAND, records its wall time and CPU time (user+sys of its children).
stage() {
  local name="$1" start end cpu cpu_before
  shift
  echo "== stage: $name"
  start=$(date +%s)
  children_cpu
  cpu_before=$cpu
  "$@"
  end=$(date +%s)
  children_cpu
  stages+=("$(printf '%-16s %5d s wall %6d s CPU' "$name" $((end - start)) $((cpu - cpu_before)))")
  echo "== stage: $name done in $((end - start)) s"
}
summary() {
  echo "== stage times (scripts/test.sh; budget in docs/testing.md):"
  printf '   %s\n' "${stages[@]}"
}
trap 'summary; rm -f "$times_file"' EXIT

run_ctest() {
  local args=(--test-dir build --output-on-failure -j "$(nproc)")
  if [ "$fast" -eq 1 ]; then
    args+=(-L '^fast$')
  elif [ "$browser" -eq 0 ]; then
    echo "== skipping the tests labelled network"
    args+=(-LE '^network$')
  fi
  ctest "${args[@]}"
}

deps=(--test)
[ "$browser" -eq 0 ] || deps+=(chromium) # the report checks in headless Chromium
stage dependencies bash scripts/install-deps.sh "${deps[@]}"
stage build bash scripts/build.sh -DNEURON_GATE_WERROR=ON
stage tests run_ctest
[ "$extra_compilers" -eq 0 ] || stage "other compilers" bash scripts/test-compilers.sh
[ "$sanitizers" -eq 0 ] || stage sanitizers bash scripts/sanitize.sh
