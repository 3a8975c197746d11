#!/usr/bin/env bash
# The release step of the GitHub Action (action.yml): fetches the prebuilt neuron-gate that this commit of
# the action pins, verifies it against the SHA-256 committed in the action's own repository, and unpacks
# it, so that the action needs no compiler, no apt-get and no build.
#
#   release.sh DEST_DIR      writes to $GITHUB_OUTPUT (stdout when unset) either
#                              binary=DEST_DIR/neuron-gate-linux-ARCH/bin/neuron-gate   (downloaded)
#                            or
#                              build=true                    (nothing pinned: build from source)
#                            and prints ::error::/::warning:: workflow commands on stdout.
#
# The pin: ACTION/scripts/action/release-pin, ACTION being the checkout this script lies in (action.yml and
# post-comment/action.yml share it),
# written by scripts/release/pin.sh and committed by .github/workflows/release.yml as the commit after the
# one the binaries were built from; the release tag points at that commit. Lines "version vX.Y.Z",
# "commit 40-HEX" (the commit the binaries were built from), "url BASE" (assets are BASE/NAME.tar.gz),
# "sha256 ARCH 64-HEX" per architecture; "#" starts a comment. Nothing here is read from the job's
# environment or from the release itself: the pin is the trust anchor, and it is part of the code the
# workflow pinned (by tag or by SHA).
#
# Outcomes: no pin (a branch, a commit that is not a release commit, a local uses: ./), no line for this
# architecture, an OS other than Linux, or NG_FROM_SOURCE=true -> build=true with a note saying why. The
# pinned archive missing (HTTP 404) or the network failing -> a ::warning:: and build=true (the source is
# the pinned commit's). A malformed pin, an archive whose SHA-256 is not the pinned one, or a binary that
# does not run or names another commit in --version -> an ::error:: and exit 1: a damaged or altered
# download is never run, and never silently replaced by a build.
set -euo pipefail

note() { echo "neuron-gate release: $*" >&2; }
output() { echo "$1" >> "${GITHUB_OUTPUT:-/dev/stdout}"; }
build_instead() {
  note "$1; building from source"
  output "build=true"
  exit 0
}
fail() {
  echo "::error title=neuron-gate release::$1"
  [ -z "${archive:-}" ] || rm -f "$archive"
  exit 1
}

[ $# -eq 1 ] || { echo "usage: release.sh DEST_DIR" >&2; exit 2; }
dest="$1"
action="$(cd "$(dirname "$0")/../.." && pwd)"
pin="$action/scripts/action/release-pin"
[ "${NG_FROM_SOURCE:-false}" != "true" ] || build_instead "from-source is true"
[ "$(uname -s)" = "Linux" ] || build_instead "releases are built for Linux only, this is $(uname -s)"
[ -f "$pin" ] || build_instead "this commit of the action pins no release (no scripts/action/release-pin: a branch, a commit that is not a release, or uses: ./)"

arch="$(uname -m)"
version="" commit="" url="" expected=""
while read -r key value extra; do
  case "$key" in
    "" | "#"*) continue ;;
    version) [[ "$value" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ && -z "$extra" ]] || fail "release-pin: bad version line" ; version="$value" ;;
    commit) [[ "$value" =~ ^[0-9a-f]{40}$ && -z "$extra" ]] || fail "release-pin: bad commit line"; commit="$value" ;;
    url)
      [[ -z "$extra" && ( "$value" =~ ^https://[A-Za-z0-9.-]+(:[0-9]+)?/[A-Za-z0-9._/-]+$ ||
        "$value" =~ ^http://127\.0\.0\.1:[0-9]+(/[A-Za-z0-9._/-]*)?$ ) ]] || fail "release-pin: bad url line"
      url="$value" ;;
    sha256)
      [[ "$value" =~ ^[A-Za-z0-9_]+$ && "$extra" =~ ^[0-9a-f]{64}$ ]] || fail "release-pin: bad sha256 line"
      [ "$value" != "$arch" ] || expected="$extra" ;;
    *) fail "release-pin: unknown key '${key:0:40}'" ;;
  esac
done < <(head -c 4096 "$pin")
[ -n "$version" ] && [ -n "$commit" ] && [ -n "$url" ] || fail "release-pin: needs version, commit and url lines"
[ -n "$expected" ] || build_instead "release $version has no binary for $arch"

name="neuron-gate-linux-$arch"
mkdir -p "$dest"
archive="$dest/$name.tar.gz"
note "fetching $url/$name.tar.gz (release $version, built from ${commit:0:12})"
status="$(curl --silent --show-error --location --retry 3 --retry-delay 2 --connect-timeout 20 --max-time 300 \
  --max-filesize 200000000 --output "$archive" --write-out '%{http_code}' "$url/$name.tar.gz" 2> "$dest/curl.log" || true)"
if [ "$status" != "200" ]; then
  rm -f "$archive"
  echo "::warning title=neuron-gate release::could not download $url/$name.tar.gz (HTTP $status: $(tr '\n' ' ' < "$dest/curl.log")); building release $version's commit from source"
  output "build=true"
  exit 0
fi
actual="$(sha256sum "$archive" | cut -d' ' -f1)"
[ "$actual" = "$expected" ] ||
  fail "checksum mismatch for $url/$name.tar.gz: the action's release-pin says $expected, the download is $actual; not used"
note "sha256 $actual verified against the action's release-pin"
rm -rf "${dest:?}/$name"
tar -C "$dest" -xzf "$archive" "$name/" || fail "$archive is not a neuron-gate release archive (no $name/)"
binary="$dest/$name/bin/neuron-gate"
version_text="$("$binary" --version 2>&1 | head -c 300)" || fail "the released binary does not run here: $version_text"
[[ "$version_text" == *"(git commit ${commit:0:12}"* ]] ||
  fail "the released binary says '$version_text', not the pinned commit ${commit:0:12}; not used"
note "using $version_text from $url"
output "binary=$binary"
