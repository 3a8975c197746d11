#!/usr/bin/env bash
# Quick start: install what is missing, build, and compare the bundled example profiles
# (RMSNorm as separate ops, base `A`, against a head `Areg` that adds a useless pow+mean per call):
# scripts/demo-compare.sh writes the Markdown and HTML reports to build/demo/ and prints the compact
# summary and their paths.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh >&2 # progress on stderr, the summary alone on stdout
# The regression it finds is in the summary and the exit-code line; the demo itself succeeded.
bash scripts/demo-compare.sh build/src/neuron-gate build/demo || true
