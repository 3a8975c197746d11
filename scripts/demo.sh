#!/usr/bin/env bash
# Quick start: install what is missing, build, and compare the bundled example profiles
# (RMSNorm as separate ops, base `A`, against a head `Areg` that adds a useless pow+mean per call).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh >&2 # progress on stderr, the report alone on stdout
status=0
./build/src/neuron-gate compare examples/rmsnorm-4x512/A examples/rmsnorm-4x512/Areg || status=$?
echo "neuron-gate exit code: $status (0 pass, 1 regression, 2 usage or input error, 3 not comparable, 4 inconclusive under --strict)" >&2
