#!/usr/bin/env bash
# The other compilers' stage of scripts/test.sh: each compiles every source of the libraries and the binary
# warning-free (-Werror) — g++-11 by default (Ubuntu 22.04's compiler, as on the Neuron DLAMI). clang's
# -Werror build is the sanitizer build (scripts/sanitize.sh), and the unit tests run in the main build; this
# checks that the code compiles with an older toolchain (and its older standard library: a missing #include
# shows up here). It compiles with -fsyntax-only (parsing, template instantiation and the front end's
# warnings, which is where an older compiler differs; the optimiser's warnings are the main -O2 build's):
# 45% of the CPU time of an -O0 build, and nothing is linked.
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
  echo "== $compiler: compile every source of neuron-gate with -fsyntax-only (log: $log)"
  mkdir -p "$dir"
  : > "$log"
  status=0
  # compile_commands.json lists the library and binary sources (BUILD_TESTING=OFF); each "-o OBJ -c SRC"
  # becomes "-fsyntax-only SRC". The generated build_info.cpp is written first.
  {
    cmake -S . -B "$dir" -G Ninja -DCMAKE_CXX_COMPILER="$compiler" -DCMAKE_BUILD_TYPE=None \
      -DCMAKE_CXX_FLAGS="-O0 -g0" -DNEURON_GATE_WERROR=ON -DBUILD_TESTING=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON &&
      cmake --build "$dir" --target neuron_gate_build_info &&
      python3 -c '
import json, re, sys
for entry in json.load(open(sys.argv[1])):
    command = re.sub(r" -o \S+ -c ", " -fsyntax-only ", entry["command"])
    if "-fsyntax-only" not in command:
        sys.exit("test-compilers.sh: no \"-o OBJ -c SRC\" in " + entry["command"])
    sys.stdout.write(command + "\0")
' "$dir/compile_commands.json" > "$dir/syntax-commands" &&
      xargs -0 -P "$(nproc)" -n 1 sh -c < "$dir/syntax-commands"
  } > "$log" 2>&1 || status=$?
  if [ "$status" -ne 0 ]; then
    grep -E "error|warning" "$log" | head -n 40
    echo "FAILED - $compiler: compile (see $log)"
    failed=$((failed + 1))
  elif grep -q "warning:" "$log"; then
    grep "warning:" "$log" | head -n 20
    echo "FAILED - $compiler: the compile printed warnings"
    failed=$((failed + 1))
  else
    echo "ok     - $compiler: $(tr -cd '\0' < "$dir/syntax-commands" | wc -c) sources compile warning-free ($((SECONDS - start)) s)"
    passed=$((passed + 1))
  fi
done
echo "compilers: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
