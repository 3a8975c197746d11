#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the other compilers' builds and unit tests
# (scripts/test-compilers.sh: g++-11 and clang++), then ctest (unit, golden, CLI, install, action and
# layering tests, and the report checks in npm packages and headless Chromium).
#
# Usage: scripts/test.sh [--no-browser] [--no-extra-compilers]
#   --no-browser          skip the ctest tests labelled `network`: the report checks (they install Chromium
#                         with apt-get and markdown-it and mermaid from npm) and the action validator (from
#                         npm). For a machine without root or without the network; CI runs them.
#   --no-extra-compilers  skip scripts/test-compilers.sh (about 6 minutes on 2 cores, uncached), for local
#                         runs; CI runs it.
# Needs root (or sudo) for apt-get when packages are missing: scripts/install-deps.sh --test.
set -euo pipefail
cd "$(dirname "$0")/.."
browser=1
extra_compilers=1
for arg in "$@"; do
  case "$arg" in
    --no-browser) browser=0 ;;
    --no-extra-compilers) extra_compilers=0 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/test.sh: unknown option $arg (--no-browser, --no-extra-compilers)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh --test
bash scripts/build.sh
status=0
if [ "$extra_compilers" -eq 1 ]; then
  bash scripts/test-compilers.sh || status=$?
fi
ctest_args=(--test-dir build --output-on-failure -j "$(nproc)")
if [ "$browser" -eq 0 ]; then
  echo "== --no-browser: skipping the tests labelled network (Chromium and npm packages)"
  ctest_args+=(-LE network)
fi
ctest "${ctest_args[@]}" || status=$?
exit "$status"
