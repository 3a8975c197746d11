#!/usr/bin/env bash
# Configures and builds neuron-gate in ./build (Release unless BUILD_TYPE is set).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build build -j "$(nproc)"
