#!/usr/bin/env bash
# Quick start: install what is missing, build the neuron-gate binary alone (Release, no debug info; not
# the tests, fuzz targets or benchmarks, which the demo never runs), and compare the bundled example
# profiles (RMSNorm as separate ops, base `A`, against a head `Areg` that adds a useless pow+mean per
# call): scripts/demo-compare.sh writes the Markdown and HTML reports to build/demo/ and prints the
# compact summary and their paths. Progress (configure summary, ninja's [N/M] lines, the elapsed time)
# goes to stderr, the summary alone to stdout. `bash scripts/build.sh` builds everything, tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
echo "== [1/3] installing missing build packages (scripts/install-deps.sh)" >&2
bash scripts/install-deps.sh >&2
echo "== [2/3] configuring build/ (cmake, Release, no debug info)" >&2
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
echo "== building the neuron-gate target only, $(nproc) jobs (3–4 minutes on 2 cores the first time)" >&2
cmake --build build --target neuron-gate -j "$(nproc)" >&2
echo "== built build/src/neuron-gate: $(build/src/neuron-gate --version) ($((SECONDS - start)) s so far)" >&2
echo "== [3/3] comparing examples/rmsnorm-4x512/A with examples/rmsnorm-4x512/Areg" >&2
# The regression it finds is in the summary and the exit-code line; the demo itself succeeded.
bash scripts/demo-compare.sh build/src/neuron-gate build/demo || true
