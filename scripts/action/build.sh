#!/usr/bin/env bash
# Build support for the GitHub Action (action.yml), used when the action pins no release binary (scripts/action/release-pin)
# (scripts/action/release.sh says build=true).
#   build.sh key SOURCE_DIR         prints key=... and restore-key=...: the cache key for the build folder
#                                   and its prefix. hashFiles() cannot be used: it only sees files under
#                                   $GITHUB_WORKSPACE, and the action's own checkout ($GITHUB_ACTION_PATH) is
#                                   elsewhere. Hashes what the binary is built from: src/**, CMakeLists.txt,
#                                   cmake/**, rules/** (the default rules are compiled in), plus the OS
#                                   release and architecture it links for. Nothing from the pull request or
#                                   the workflow run is in it, so a build saved by a run on the default
#                                   branch (whose caches every pull request may restore) serves them all.
#   build.sh build SOURCE_DIR BUILD_DIR [KEY]
#                                   reuses BUILD_DIR/src/neuron-gate if it runs and BUILD_DIR/.neuron-gate-key
#                                   is KEY (default: the key of SOURCE_DIR) (an exact cache hit), else configures and builds it (Release, no
#                                   tests), with ccache in BUILD_DIR/.ccache when ccache is installed, so a
#                                   folder restored from an older key (restore-keys) rebuilds only what
#                                   changed; prints binary=PATH.
set -euo pipefail

key() {
  local src="$1" os="unknown" files prefix
  if [ -r /etc/os-release ]; then
    # shellcheck disable=SC1091
    os="$(. /etc/os-release && echo "${ID:-linux}-${VERSION_ID:-rolling}")"
  fi
  files="$(cd "$src" && { find src cmake rules -type f -print0 2>/dev/null; printf '%s\0' CMakeLists.txt; } \
    | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-32)"
  prefix="neuron-gate-build-$os-$(uname -m)-"
  echo "key=$prefix$files"
  echo "restore-key=$prefix"
}

build() {
  local src dir="$2" want have=""
  src="$(cd "$1" && pwd)"
  want="${3:-$(key "$src" | sed -n 's/^key=//p')}"
  [ -r "$dir/.neuron-gate-key" ] && have="$(cat "$dir/.neuron-gate-key")"
  if [ -x "$dir/src/neuron-gate" ] && [ "$have" = "$want" ] && "$dir/src/neuron-gate" --version > /dev/null 2>&1; then
    echo "reusing $("$dir/src/neuron-gate" --version) from $dir (cache key $want)" >&2
  else
    [ -z "$have" ] || echo "the cached build is for $have, not $want: rebuilding what changed" >&2
    # The build tree holds absolute source paths: start afresh when the source moved (another ref).
    if [ -f "$dir/CMakeCache.txt" ] && ! grep -qxF "CMAKE_HOME_DIRECTORY:INTERNAL=$src" "$dir/CMakeCache.txt"; then
      find "$dir" -mindepth 1 -maxdepth 1 ! -name .ccache -exec rm -rf {} +
    fi
    rm -f "$dir/.neuron-gate-key"
    local launcher=()
    if command -v ccache > /dev/null; then
      export CCACHE_DIR="$dir/.ccache" CCACHE_BASEDIR="$src" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=300M
      launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    fi
    # No -Werror: a warning from a newer compiler on the runner must not break the gate.
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNEURON_GATE_WERROR=OFF \
      "${launcher[@]}" >&2
    cmake --build "$dir" --target neuron-gate >&2
    [ ${#launcher[@]} -eq 0 ] || ccache --show-stats >&2 || true
    printf '%s\n' "$want" > "$dir/.neuron-gate-key"
  fi
  echo "binary=$dir/src/neuron-gate"
}

case "${1:-}" in
  key) [ $# -eq 2 ] || { echo "usage: build.sh key SOURCE_DIR" >&2; exit 2; }; key "$2" ;;
  build) [ $# -ge 3 ] && [ $# -le 4 ] || { echo "usage: build.sh build SOURCE_DIR BUILD_DIR [KEY]" >&2; exit 2; }
    build "$2" "$3" "${4:-}" ;;
  *) echo "usage: build.sh key SOURCE_DIR | build.sh build SOURCE_DIR BUILD_DIR [KEY]" >&2; exit 2 ;;
esac
