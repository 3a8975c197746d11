#!/bin/sh
# Builds bench/read_trace (Release) against a build of the profile library and times it on a trace:
#   bench/read_trace.sh [TRACE...]   (default: ../shared/profiles/large-transformer/*.pt.trace.json.gz)
# Prints the reader's own timing and /usr/bin/time -v's wall time and peak RSS.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build="$here/build-bench"
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" --target neuron_gate_profile >/dev/null
g++ -std=c++20 -O2 -I"$here/src" "$here/bench/read_trace.cpp" \
  "$build/src/profile/libneuron_gate_profile.a" "$build/src/formats/libneuron_gate_formats.a" \
  "$build/src/input/libneuron_gate_input.a" "$build/src/util/libneuron_gate_util.a" -lz -lgit2 \
  -o "$build/read_trace"
if [ $# -eq 0 ]; then
  set -- "$here"/../shared/profiles/large-transformer/*.pt.trace.json.gz
fi
/usr/bin/time -v "$build/read_trace" --quiet "$@" 2>&1 | grep -E "events|Elapsed|Maximum resident"
