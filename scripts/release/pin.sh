#!/usr/bin/env bash
# Writes the release pin (scripts/action/release-pin) that the action's release step (scripts/action/
# release.sh) trusts: which release to download, from where, its archives' SHA-256 per architecture, and
# the commit the binaries were built from. .github/workflows/release.yml commits it on top of that commit
# (X) as X+1 and tags X+1, so a workflow pinned to the tag or to X+1's SHA runs exactly those binaries.
#
# Usage: pin.sh VERSION COMMIT URL DIST_DIR > scripts/action/release-pin
#   VERSION   the release tag, vMAJOR.MINOR.PATCH
#   COMMIT    the 40-hex commit the archives were built from (their --version names its first 12)
#   URL       the folder the assets are downloaded from (https://github.com/OWNER/REPO/releases/download/VERSION)
#   DIST_DIR  holds neuron-gate-linux-ARCH.tar.gz, one per architecture; the SHA-256 is computed here
#             from the archives, never copied from their .sha256 files
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: scripts/release/pin.sh VERSION COMMIT URL DIST_DIR" >&2
  exit 2
fi
version="$1" commit="$2" url="$3" dist="$4"
[[ "$version" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "pin.sh: version '$version' is not vMAJOR.MINOR.PATCH" >&2; exit 2; }
[[ "$commit" =~ ^[0-9a-f]{40}$ ]] || { echo "pin.sh: commit '$commit' is not a 40-hex commit" >&2; exit 2; }
[[ "$url" =~ ^https://[A-Za-z0-9.-]+(:[0-9]+)?/[A-Za-z0-9._/-]+$ || "$url" =~ ^http://127\.0\.0\.1:[0-9]+(/[A-Za-z0-9._/-]*)?$ ]] ||
  { echo "pin.sh: url '$url' is not an https URL" >&2; exit 2; }
archives=("$dist"/neuron-gate-linux-*.tar.gz)
[ -e "${archives[0]}" ] || { echo "pin.sh: no neuron-gate-linux-*.tar.gz in $dist" >&2; exit 2; }
echo "# The neuron-gate release this commit of the action runs (scripts/release/pin.sh, written by"
echo "# .github/workflows/release.yml; read by scripts/action/release.sh). Do not edit by hand."
echo "version $version"
echo "commit $commit"
echo "url $url"
for archive in "${archives[@]}"; do
  name="$(basename "$archive" .tar.gz)"
  arch="${name#neuron-gate-linux-}"
  [[ "$arch" =~ ^[A-Za-z0-9_]+$ ]] || { echo "pin.sh: unexpected archive name $archive" >&2; exit 2; }
  echo "sha256 $arch $(sha256sum "$archive" | cut -d' ' -f1)"
done
