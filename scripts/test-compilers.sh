#!/usr/bin/env bash
# The other compilers' stage of scripts/test.sh: each builds the libraries and the binary warning-free
# (-Werror) — g++-11 by default (Ubuntu 22.04's compiler, as on the Neuron DLAMI). clang's -Werror build is
# the sanitizer build (scripts/sanitize.sh), and the unit tests run in the main build; this checks that the
# code compiles with an older toolchain (and its older standard library: a missing #include shows up
# here), so it builds at -O0 without debug info: -Werror at -O2 is the main build's (g++-12).
#
# Usage: test-compilers.sh [--build-root DIR] [COMPILER...]     default: g++-11
# Each compiler gets DIR/build-<name>/ (DIR: the source folder by default; log: build-<name>/test-compilers.log).
# Prints one line per compiler and "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."

root="."
if [ "${1:-}" = "--build-root" ]; then
  [ $# -ge 2 ] || { echo "usage: test-compilers.sh [--build-root DIR] [COMPILER...]" >&2; exit 2; }
  root="$2"
  shift 2
fi
compilers=("$@")
[ ${#compilers[@]} -gt 0 ] || compilers=(g++-11)

passed=0
failed=0
for compiler in "${compilers[@]}"; do
  name="$(basename "$compiler" | sed 's/clang++/clang/; s/g++/gcc/' | tr -c 'A-Za-z0-9.\n' '-')"
  dir="$root/build-$name"
  log="$dir/test-compilers.log"
  start=$SECONDS
  if ! command -v "$compiler" > /dev/null; then
    echo "FAILED - $compiler: not installed (scripts/install-deps.sh --test installs g++-11)"
    failed=$((failed + 1))
    continue
  fi
  echo "== $compiler: configure and build neuron-gate into $dir (log: $log)"
  mkdir -p "$dir"
  : > "$log"
  status=0
  {
    cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=None \
      -DCMAKE_CXX_FLAGS="-O0 -g0" -DNEURON_GATE_WERROR=ON -DBUILD_TESTING=OFF &&
      cmake --build "$dir" -j "$(nproc)" --target neuron-gate
  } > "$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    grep -E "error|warning" "$log" | head -n 40
    echo "FAILED - $compiler: build (see $log)"
    failed=$((failed + 1))
  elif grep -q "warning:" "$log"; then
    grep "warning:" "$log" | head -n 20
    echo "FAILED - $compiler: the build printed warnings"
    failed=$((failed + 1))
  elif ! "$dir/src/neuron-gate" --version > /dev/null; then
    echo "FAILED - $compiler: the binary does not run"
    failed=$((failed + 1))
  else
    echo "ok     - $compiler: warning-free build of the libraries and the binary ($((SECONDS - start)) s)"
    passed=$((passed + 1))
  fi
done
echo "compilers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
