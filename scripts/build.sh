#!/usr/bin/env bash
# Configures and builds neuron-gate in ./build (Release, no debug info, unless BUILD_TYPE is set), printing
# CMake's configure summary (extra arguments go to cmake's configure step) and ninja's [N/M] progress. The binary is build/src/neuron-gate.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== configuring build/ (cmake, ${BUILD_TYPE:-Release})"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}" "$@"
echo "== building with $(nproc) jobs (a first build takes about 4 minutes on 2 cores)"
cmake --build build -j "$(nproc)"
echo "== built build/src/neuron-gate: $(build/src/neuron-gate --version)"
