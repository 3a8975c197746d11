#!/usr/bin/env bash
# Installs neuron-gate as a user would and runs it from the installed tree, not from the build folder:
#  1. `cmake --install BUILD --prefix SCRATCH`: the layout (bin/, share/neuron-gate/rules/, share/doc/
#     neuron-gate/ with LICENSE, README.md and the examples), `--version` (version and the git commit of the
#     source tree), and compares of the installed examples (A vs A2 passes, A vs Areg exits 1), with the
#     installed rules file too, from a working folder outside the source tree.
#  2. scripts/release/bundle.sh on a copy of that tree (what a release archive holds): the non-glibc shared
#     libraries copied into lib/neuron-gate/, the binary's DT_RPATH $ORIGIN/../lib/neuron-gate, and the
#     moved tree runs with nothing but glibc from the system.
#  3. `cpack -G DEB` (when dpkg-deb and dpkg-shlibdeps are there): the package's name, version, declared
#     run-time dependencies (libgit2, libssl/libcrypto, zlib: computed by dpkg-shlibdeps) and the commit in
#     its description; its files; the binary unpacked from it runs.
#
# Usage: test_install.sh BUILD_DIR SOURCE_DIR     (ctest: install-tree)
# Prints "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
  echo "usage: test_install.sh BUILD_DIR SOURCE_DIR" >&2
  echo "0 passed, 1 failed"
  exit 2
fi
build="$(cd "$1" && pwd)"
source="$(cd "$2" && pwd)"
tmp="$(mktemp -d)"
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT

passed=0
failed=0
check() { # check DESCRIPTION COMMAND...
  local description="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok     - $description"
  else
    failed=$((failed + 1))
    echo "FAILED - $description"
  fi
}
equals() { [ "$1" = "$2" ] || { echo "         expected '$2', got '$1'"; return 1; }; }
matches() { [[ "$1" =~ $2 ]] || { echo "         '$1' does not match /$2/"; return 1; }; }
contains() { grep -qF -- "$2" "$1" || { echo "         '$2' not in $1"; return 1; }; }
exit_code() { "$@" > /dev/null 2>&1; echo $?; }

version="$(sed -n 's/^project(neuron-gate VERSION \([0-9.]*\).*/\1/p' "$source/CMakeLists.txt")"
commit_re="[0-9a-f]{12}(-dirty)?|unknown"
if git -C "$source" rev-parse HEAD > /dev/null 2>&1; then
  commit_re="$(git -C "$source" rev-parse --short=12 HEAD)(-dirty)?"
fi
# What the installed and packaged binaries must report: the commit this build recorded (a build made
# before the last commit records the commit it was built from; BuildInfo.cmake itself is checked below).
built_commit="$(sed -n 's/.*build_commit() { return "\([^"]*\)".*/\1/p' "$build/src/generated/build_info.cpp")"
built_re="${built_commit:-none recorded}"

echo "# cmake --install into a scratch prefix"
prefix="$tmp/prefix"
check "cmake --install succeeds" cmake --install "$build" --prefix "$prefix" > "$tmp/install.log"
check "bin/neuron-gate is an executable" test -x "$prefix/bin/neuron-gate"
check "share/neuron-gate/rules/default.json is the default rules" cmp "$prefix/share/neuron-gate/rules/default.json" "$source/rules/default.json"
check "share/doc/neuron-gate/LICENSE" cmp "$prefix/share/doc/neuron-gate/LICENSE" "$source/LICENSE"
check "share/doc/neuron-gate/README.md" cmp "$prefix/share/doc/neuron-gate/README.md" "$source/README.md"
examples="$prefix/share/doc/neuron-gate/examples/rmsnorm-4x512"
check "the examples are installed" test -d "$examples/A"
check "as many example files as in the source" equals "$(find "$prefix/share/doc/neuron-gate/examples" -type f | wc -l)" "$(find "$source/examples" -type f | wc -l)"

mkdir -p "$tmp/cwd"
cd "$tmp/cwd" || exit 1
installed="$prefix/bin/neuron-gate"
check "--version exits 0" equals "$(exit_code "$installed" --version)" 0
check "the build recorded a commit" matches "$built_commit" "^([0-9a-f]{12}(-dirty)?|unknown)\$"
check "--version prints version $version and the build's commit" matches "$("$installed" --version)" "^neuron-gate $version \\(git commit ($built_re)\\)\$"
check "installed examples A vs A2: pass (exit 0)" equals "$(exit_code "$installed" compare "$examples/A" "$examples/A2" --quiet --no-git)" 0
check "installed examples A vs Areg: regression (exit 1)" equals "$(exit_code "$installed" compare "$examples/A" "$examples/Areg" --quiet --no-git)" 1
"$installed" compare "$examples/A" "$examples/A2" --no-git --rules "$prefix/share/neuron-gate/rules/default.json" \
  --json "$tmp/cwd/report.json" > "$tmp/cwd/report.md" 2> "$tmp/cwd/stderr"
check "with the installed rules file: pass, JSON report written" contains "$tmp/cwd/report.json" '"schema": "neuron-gate.report/2"'
check "the Markdown report says PASS" matches "$(head -n 1 "$tmp/cwd/report.md")" "PASS"

echo "# the commit --version reports, as cmake/BuildInfo.cmake computes it at build time"
build_info() { # build_info SOURCE [COMMIT]: the commit BuildInfo.cmake writes
  rm -f "$tmp/build_info.cpp"
  cmake -DSRC="$1" -DOUT="$tmp/build_info.cpp" -DCOMMIT="${2:-}" -P "$source/cmake/BuildInfo.cmake" &&
    sed -n 's/.*return "\(.*\)";.*/\1/p' "$tmp/build_info.cpp"
}
mkdir -p "$tmp/tarball"
cp "$source/CMakeLists.txt" "$tmp/tarball/" # a source tree without .git, as a release tarball unpacks
check "a source tree without .git: unknown" equals "$(build_info "$tmp/tarball")" unknown
check "-DNEURON_GATE_GIT_COMMIT wins" equals "$(build_info "$tmp/tarball" 1234567890ab)" 1234567890ab
check "a hostile override cannot break the C++ literal" equals "$(build_info "$tmp/tarball" 'a"b;c\d')" a_b_c_d
if git -C "$source" rev-parse HEAD > /dev/null 2>&1; then
  check "in the git checkout: HEAD's 12-digit commit" matches "$(build_info "$source")" "^$commit_re\$"
fi

echo "# the release bundle (scripts/release/bundle.sh): shared libraries beside the binary, found by RPATH"
if ! command -v patchelf > /dev/null; then
  check "patchelf is installed (scripts/install-deps.sh --test)" false
else
  cp -a "$prefix" "$tmp/bundle"
  check "bundle.sh succeeds" bash "$source/scripts/release/bundle.sh" "$tmp/bundle" > "$tmp/bundle.log"
  mv "$tmp/bundle" "$tmp/moved" # $ORIGIN: the tree works wherever it is unpacked
  bundled="$tmp/moved/bin/neuron-gate"
  check "libgit2 is bundled in lib/neuron-gate/" test -n "$(compgen -G "$tmp/moved/lib/neuron-gate/libgit2.so.*")"
  check "the binary's RPATH is \$ORIGIN/../lib/neuron-gate" equals "$(patchelf --print-rpath "$bundled")" '$ORIGIN/../lib/neuron-gate'
  check "it is a DT_RPATH (also searched for the libraries' own dependencies), not DT_RUNPATH" \
    bash -c "readelf -d '$bundled' | grep -q '(RPATH)' && ! readelf -d '$bundled' | grep -q '(RUNPATH)'"
  env -u LD_LIBRARY_PATH ldd "$bundled" > "$tmp/ldd"
  bundle_dir="$tmp/moved/(bin/\.\./)?lib/neuron-gate/" # ldd prints $ORIGIN/../lib as bin/../lib
  check "ldd: libgit2 is loaded from the bundle" grep -qE "libgit2\.so.* => ${bundle_dir}libgit2" "$tmp/ldd"
  outside="$(grep '=>' "$tmp/ldd" | grep -vE "=> $bundle_dir" |
    grep -vE '^\s*(libc|libm|libpthread|libdl|librt|libresolv|linux-vdso)\.so' || true)"
  check "ldd: nothing but glibc comes from the system" equals "$outside" ""
  check "the bundled binary runs from the moved tree: --version" matches "$(env -u LD_LIBRARY_PATH "$bundled" --version)" "^neuron-gate $version "
  check "the bundled binary: A vs Areg exits 1" equals "$(exit_code env -u LD_LIBRARY_PATH "$bundled" compare "$examples/A" "$examples/Areg" --quiet --no-git)" 1
fi

echo "# cpack -G DEB"
if ! command -v dpkg-deb > /dev/null || ! command -v dpkg-shlibdeps > /dev/null || ! command -v file > /dev/null; then
  check "dpkg-deb, dpkg-shlibdeps and file are installed (scripts/install-deps.sh: dpkg-dev file)" false
else
  cpack --config "$build/CPackConfig.cmake" -G DEB -B "$tmp/deb" > "$tmp/cpack.log" 2>&1 || cat "$tmp/cpack.log"
  deb="$(find "$tmp/deb" -maxdepth 1 -name 'neuron-gate_*.deb' | head -n 1)"
  check "cpack -G DEB made neuron-gate_${version}_ARCH.deb" matches "$(basename "${deb:-none}")" "^neuron-gate_${version}_[a-z0-9]+\\.deb\$"
  if [ -n "$deb" ]; then
    dpkg-deb --info "$deb" > "$tmp/info"
    dpkg-deb --contents "$deb" > "$tmp/contents"
    check "Package: neuron-gate" contains "$tmp/info" "Package: neuron-gate"
    check "Version: $version" contains "$tmp/info" "Version: $version"
    depends="$(sed -n 's/^ Depends: //p' "$tmp/info")"
    echo "         Depends: $depends"
    for library in libgit2 libssl libc6 libstdc++ zlib1g; do
      check "Depends declares $library" matches "$depends" "(^|, )$library"
    done
    check "the description names the commit" matches "$(grep 'Built from git commit' "$tmp/info")" "Built from git commit ($built_re)\\."
    for path in ./usr/bin/neuron-gate ./usr/share/neuron-gate/rules/default.json ./usr/share/doc/neuron-gate/LICENSE \
      ./usr/share/doc/neuron-gate/examples/rmsnorm-4x512/A/; do
      check "the package holds $path" contains "$tmp/contents" " $path"
    done
    dpkg-deb -x "$deb" "$tmp/unpacked"
    check "the packaged binary runs: --version" matches "$("$tmp/unpacked/usr/bin/neuron-gate" --version)" "^neuron-gate $version \\(git commit ($built_re)\\)\$"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
