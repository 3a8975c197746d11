#!/usr/bin/env bash
# Installs the Debian 12 / Ubuntu packages neuron-gate builds with, skipping those already installed.
#   install-deps.sh [PACKAGE...]   what building the binary needs, and the packages named (the GitHub
#                            Action's source build: install-deps.sh ccache)
#   install-deps.sh --test   also what scripts/test.sh needs: g++-11 and clang (scripts/test-compilers.sh),
#                            (also libclang-rt-14-dev, llvm-14: scripts/sanitize.sh, scripts/fuzz.sh),
#                            dpkg-dev and file (cpack -G DEB in the install test), patchelf (the
#                            release bundle in the install test), curl (the action's release download
#                            against a local stub server), python3-torch python3-venv
#                            python3-pip python3-wheel (the capture helper's tests), nodejs and npm when
#                            npm is missing (the action validator and report checks; Chromium is
#                            installed by those checks themselves)
# Runs apt-get (as root, or through sudo) only when something is missing.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libboost-math-dev libcli11-dev doctest-dev
          zlib1g-dev libgit2-dev libssl-dev rapidjson-dev python3)
for arg in "$@"; do
  case "$arg" in
    --test)
      packages+=(g++-11 clang clang-format dpkg-dev file patchelf curl
                 # scripts/sanitize.sh and scripts/fuzz.sh: libFuzzer, ASan and UBSan runtimes for clang, and
                 # the symbolizer that turns sanitizer stack traces into file:line
                 libclang-rt-14-dev llvm-14
                 # the Python capture helper's tests (python/): a venv with Debian's CPU torch, pip inside it
                 python3-torch python3-venv python3-pip python3-wheel)
      # Debian's nodejs and npm only when no node/npm is there (another node build may provide both).
      command -v npm > /dev/null 2>&1 || packages+=(nodejs npm)
      ;;
    -*) echo "usage: install-deps.sh [--test] [PACKAGE...]" >&2; exit 2 ;;
    *) packages+=("$arg") ;;
  esac
done
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
