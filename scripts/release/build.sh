#!/usr/bin/env bash
# Builds the release archive of neuron-gate for this machine's architecture (.github/workflows/release.yml
# runs it on ubuntu-22.04 for x86_64 and on ubuntu-22.04-arm for aarch64):
#   OUT_DIR/neuron-gate-linux-ARCH.tar.gz          neuron-gate-linux-ARCH/{bin,lib/neuron-gate,share}
#   OUT_DIR/neuron-gate-linux-ARCH.tar.gz.sha256   "HASH  neuron-gate-linux-ARCH.tar.gz" (sha256sum -c)
# ARCH is `uname -m` (x86_64, aarch64): the action (scripts/action/release.sh) asks for the same name.
# Release build, no tests; libstdc++ and libgcc linked statically; libgit2 and the rest of the closure
# bundled (scripts/release/bundle.sh says why). Then the archive is unpacked elsewhere and its binary run
# (--version, a compare of the bundled examples) with LD_LIBRARY_PATH cleared.
#
# Usage: build.sh OUT_DIR [BUILD_DIR]     BUILD_DIR defaults to build-release/ (reused when present)
# NEURON_GATE_GIT_COMMIT, when set, is the commit --version reports (else asked of git).
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/release/build.sh OUT_DIR [BUILD_DIR]" >&2
  exit 2
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
build="${2:-$root/build-release}"
arch="$(uname -m)"
name="neuron-gate-linux-$arch"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

echo "== configuring $build (Release, static libstdc++/libgcc)"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DNEURON_GATE_WERROR=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-static-libstdc++ -static-libgcc" \
  -DNEURON_GATE_GIT_COMMIT="${NEURON_GATE_GIT_COMMIT:-}"
echo "== building neuron-gate"
cmake --build "$build" --target neuron-gate
echo "== installing into $name/ and bundling its shared libraries"
cmake --install "$build" --prefix "$stage/$name"
bash "$root/scripts/release/bundle.sh" "$stage/$name"
tar -C "$stage" -czf "$out/$name.tar.gz" --owner=0 --group=0 --numeric-owner "$name"
(cd "$out" && sha256sum "$name.tar.gz" > "$name.tar.gz.sha256")

echo "== checking the archive from a fresh folder"
mkdir "$stage/check"
tar -C "$stage/check" -xzf "$out/$name.tar.gz"
binary="$stage/check/$name/bin/neuron-gate"
examples="$stage/check/$name/share/doc/neuron-gate/examples/rmsnorm-4x512"
ldd "$binary"
if ldd "$binary" | grep -E '=> /(usr/)?lib' | grep -vE '/(libc|libm|libpthread|libdl|librt|libresolv|ld-linux[^/]*)\.so'; then
  echo "release: the libraries above are loaded from the system, not from the archive" >&2
  exit 1
fi
env -u LD_LIBRARY_PATH "$binary" --version
env -u LD_LIBRARY_PATH "$binary" compare "$examples/A" "$examples/A2" --quiet --no-git
echo "== $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)), sha256 $(cut -d' ' -f1 "$out/$name.tar.gz.sha256")"
