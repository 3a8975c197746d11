#!/usr/bin/env bash
# Installs the Debian 12 packages neuron-gate builds and tests with, skipping those already installed.
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libboost-math-dev libcli11-dev doctest-dev
          zlib1g-dev libgit2-dev libssl-dev python3
          # the Python capture helper's tests (python/): a venv with Debian's CPU torch, pip inside it
          python3-torch python3-venv python3-pip python3-wheel)
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
