#!/usr/bin/env bash
# Makes an installed tree (cmake --install --prefix PREFIX) run on a Linux without neuron-gate's
# libraries: copies every shared library bin/neuron-gate loads that is not part of glibc (libgit2 and its
# closure: mbedTLS, libssh2, http-parser, PCRE2, zlib, OpenSSL's libcrypto, Kerberos GSSAPI; whatever
# ldd lists) into PREFIX/lib/neuron-gate/, and sets the binary's DT_RPATH to $ORIGIN/../lib/neuron-gate.
# DT_RPATH, not DT_RUNPATH: it is searched for the libraries' own dependencies too, and before the
# system's folders, so the bundled copies are the ones loaded. glibc is not bundled (the binary needs the
# glibc it was built against or newer: build on the oldest target, Ubuntu 22.04).
#
# Why bundle rather than link statically: libgit2 needs GSSAPI (krb5), of which Debian and Ubuntu ship no
# static library, and Ubuntu 22.04 and 24.04 ship libgit2 under different sonames (1.1, 1.7). libstdc++
# and libgcc are linked statically by scripts/release/build.sh (-static-libstdc++ -static-libgcc).
#
# Usage: bundle.sh PREFIX      needs ldd and patchelf; prints what it bundled.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -x "$1/bin/neuron-gate" ]; then
  echo "usage: bundle.sh PREFIX (an installed tree with bin/neuron-gate)" >&2
  exit 2
fi
prefix="$(cd "$1" && pwd)"
binary="$prefix/bin/neuron-gate"
libdir="$prefix/lib/neuron-gate"
command -v patchelf > /dev/null || { echo "bundle.sh: patchelf is required (apt-get install patchelf)" >&2; exit 2; }
mkdir -p "$libdir"

# glibc's own libraries and the kernel's vDSO: always there, never bundled.
is_system() {
  case "$1" in
    linux-vdso.so.* | linux-gate.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
      librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libnsl.so.* | libcrypt.so.*) return 0 ;;
  esac
  return 1
}

count=0
# ldd lists the whole closure ("libgit2.so.1.5 => /usr/lib/x86_64-linux-gnu/libgit2.so.1.5 (0x...)").
while read -r name arrow path _; do
  [ "$arrow" = "=>" ] || continue
  is_system "$name" && continue
  if [ ! -f "$path" ]; then
    echo "bundle.sh: $name not found (ldd: $path)" >&2
    exit 1
  fi
  cp -L "$path" "$libdir/$name"
  chmod 0644 "$libdir/$name"
  echo "bundled $name (from $path)"
  count=$((count + 1))
done < <(ldd "$binary")
patchelf --force-rpath --set-rpath '$ORIGIN/../lib/neuron-gate' "$binary"
echo "bundle.sh: $count libraries in $libdir; $(basename "$binary") RPATH $(patchelf --print-rpath "$binary")"
