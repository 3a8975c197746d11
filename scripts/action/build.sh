#!/usr/bin/env bash
# Build support for the GitHub Action (action.yml).
#   build.sh key SOURCE_DIR         prints key=...: the cache key for the build folder. hashFiles() cannot be
#                                   used: it only sees files under $GITHUB_WORKSPACE, and the action's own
#                                   checkout ($GITHUB_ACTION_PATH) is elsewhere. Hashes the same files it
#                                   would: src/**, CMakeLists.txt, cmake/**, rules/** (the default rules are
#                                   compiled in), plus the OS release and architecture the binary links for.
#   build.sh build SOURCE_DIR BUILD_DIR
#                                   reuses BUILD_DIR/src/neuron-gate if it runs (a cache hit), else configures
#                                   and builds it afresh; prints binary=PATH.
set -euo pipefail

key() {
  local src="$1" os="unknown" files
  if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    os="$(. /etc/os-release && echo "${ID:-linux}-${VERSION_ID:-rolling}")"
  fi
  files="$(cd "$src" && { find src cmake rules -type f -print0 2>/dev/null; printf '%s\0' CMakeLists.txt; } \
    | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-32)"
  echo "key=neuron-gate-$os-$(uname -m)-$files"
}

build() {
  local src="$1" dir="$2"
  if [ -x "$dir/src/neuron-gate" ] && "$dir/src/neuron-gate" --version >/dev/null 2>&1; then
    echo "reusing $("$dir/src/neuron-gate" --version) from $dir" >&2
  else
    rm -rf "$dir"
    # No -Werror: a warning from a newer compiler on the runner must not break the gate.
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNEURON_GATE_WERROR=OFF >&2
    cmake --build "$dir" --target neuron-gate >&2
  fi
  echo "binary=$dir/src/neuron-gate"
}

case "${1:-}" in
  key) [ $# -eq 2 ] || { echo "usage: build.sh key SOURCE_DIR" >&2; exit 2; }; key "$2" ;;
  build) [ $# -eq 3 ] || { echo "usage: build.sh build SOURCE_DIR BUILD_DIR" >&2; exit 2; }; build "$2" "$3" ;;
  *) echo "usage: build.sh key SOURCE_DIR | build.sh build SOURCE_DIR BUILD_DIR" >&2; exit 2 ;;
esac
