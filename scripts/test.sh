#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (ctest: unit, golden, CLI and layering tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"
