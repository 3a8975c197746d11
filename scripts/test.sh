#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test with ctest: unit, golden, CLI, install, action and
# layering tests, the other compilers' builds and unit tests (scripts/test-compilers.sh: g++-11 and
# clang++), and the report checks in npm packages and headless Chromium.
#
# Usage: scripts/test.sh [--no-browser] [--no-extra-compilers]
#   --no-browser          skip the ctest tests labelled `network`: the report checks (they install Chromium
#                         with apt-get and markdown-it and mermaid from npm) and the action validator (from
#                         npm). For a machine without root or without the network; CI runs them.
#   --no-extra-compilers  skip the ctest test `compilers` (label compilers: scripts/test-compilers.sh, the
#                         g++-11 and clang builds; minutes on 2 cores without a warm ccache), for local
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
    -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "scripts/test.sh: unknown option $arg (--no-browser, --no-extra-compilers)" >&2; exit 2 ;;
  esac
done

bash scripts/install-deps.sh --test
if [ "$extra_compilers" -eq 1 ]; then
  bash scripts/build.sh -DNEURON_GATE_TEST_COMPILERS=ON
else
  bash scripts/build.sh -DNEURON_GATE_TEST_COMPILERS=OFF
fi
ctest_args=(--test-dir build --output-on-failure -j "$(nproc)")
excluded=()
[ "$browser" -eq 1 ] || excluded+=(network)
[ "$extra_compilers" -eq 1 ] || excluded+=(compilers)
if [ ${#excluded[@]} -gt 0 ]; then
  echo "== skipping the tests labelled ${excluded[*]}"
  ctest_args+=(-LE "^($(IFS='|'; echo "${excluded[*]}"))\$")
fi
ctest "${ctest_args[@]}"
