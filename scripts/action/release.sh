#!/usr/bin/env bash
# The release step of the GitHub Action (action.yml): fetches the prebuilt neuron-gate that the release
# workflow (.github/workflows/release.yml) published for the action's own ref, verifies its SHA-256, and
# unpacks it, so that the action needs no compiler, no apt-get and no build.
#
#   release.sh DEST_DIR      writes to $GITHUB_OUTPUT (stdout when unset) either
#                              binary=DEST_DIR/neuron-gate-linux-ARCH/bin/neuron-gate   (downloaded)
#                            or
#                              build=true                    (no release matches: build from source)
#                            and prints ::error::/::warning:: workflow commands on stdout.
#
# Environment:
#   GITHUB_ACTION_PATH  where the runner put the action: .../_actions/OWNER/REPO/REF names the ref the
#                   workflow wrote after `@`. A tag such as v1.2.0 or v1 has a release of the same name; a
#                   branch or a commit SHA has none; a local action (uses: ./) has no ref and builds.
#   NG_ACTION_REF, NG_ACTION_REPOSITORY  ${{ github.action_ref }} and ${{ github.action_repository }},
#                   used when the path does not name them
#   NG_RELEASE_URL  base URL of the releases (default $GITHUB_SERVER_URL/OWNER/REPO/releases/download);
#                   the assets are NG_RELEASE_URL/REF/neuron-gate-linux-ARCH.tar.gz and .tar.gz.sha256
#   NG_FROM_SOURCE  "true": skip the download and build (the action's from-source input)
#
# Outcomes: no ref, a commit SHA, an OS other than Linux, or a 404 for the archive (no release of that
# name, e.g. a fork or a branch, or @v1 before its first release) -> build=true. A network failure other
# than 404 -> a warning and build=true. A checksum file that is missing or does not match the archive,
# or an archive whose binary does not run -> an ::error:: and exit 1: a damaged or altered download is
# never run, and never silently replaced by a build.
set -euo pipefail

note() { echo "neuron-gate release: $*" >&2; }
output() { echo "$1" >> "${GITHUB_OUTPUT:-/dev/stdout}"; }
build_instead() {
  note "$1; building from source"
  output "build=true"
  exit 0
}

[ $# -eq 1 ] || { echo "usage: release.sh DEST_DIR" >&2; exit 2; }
dest="$1"
[ "${NG_FROM_SOURCE:-false}" != "true" ] || build_instead "from-source is true"
[ "$(uname -s)" = "Linux" ] || build_instead "releases are built for Linux only, this is $(uname -s)"
command -v curl > /dev/null || build_instead "curl is not installed"

# The runner unpacks a downloaded action to .../_actions/OWNER/REPO/REF (REF may hold slashes, e.g. a
# branch feature/x): that path names the code that runs, so it is asked first. github.action_ref and
# github.action_repository are only a fallback: they are not promised in composite actions and can be
# empty there (actions/runner issue 2473).
ref=""
repository=""
if [[ "${GITHUB_ACTION_PATH:-}" == */_actions/*/*/* ]]; then
  rest="${GITHUB_ACTION_PATH#*/_actions/}"
  owner="${rest%%/*}"
  rest="${rest#*/}"
  repository="$owner/${rest%%/*}"
  ref="${rest#*/}"
fi
[ -n "$ref" ] || ref="${NG_ACTION_REF:-}"
[ -n "$repository" ] || repository="${NG_ACTION_REPOSITORY:-}"
[ -n "$ref" ] || build_instead "the action has no ref (a local action, uses: ./)"
[[ ! "$ref" =~ ^[0-9a-f]{40}$ ]] || build_instead "ref $ref is a commit, releases are named by tag"
[[ "$ref" =~ ^[A-Za-z0-9._/-]+$ ]] || build_instead "ref '$ref' is not a release tag name"
base="${NG_RELEASE_URL:-}"
if [ -z "$base" ]; then
  [ -n "$repository" ] || build_instead "the action's repository is unknown"
  base="${GITHUB_SERVER_URL:-https://github.com}/$repository/releases/download"
fi

arch="$(uname -m)"
name="neuron-gate-linux-$arch"
url="$base/$ref/$name.tar.gz"
mkdir -p "$dest"
archive="$dest/$name.tar.gz"
# fetch URL FILE: prints the HTTP status (000 when there was no answer).
fetch() {
  curl --silent --show-error --location --retry 3 --retry-delay 2 --connect-timeout 20 --max-time 300 \
    --output "$2" --write-out '%{http_code}' "$1" 2> "$dest/curl.log" || true
}
note "fetching $url"
status="$(fetch "$url" "$archive")"
case "$status" in
  200) ;;
  404) build_instead "no release asset $name.tar.gz for $ref (HTTP 404)" ;;
  *)
    echo "::warning title=neuron-gate release::could not download $url (HTTP $status: $(tr '\n' ' ' < "$dest/curl.log")); building from source"
    output "build=true"
    exit 0
    ;;
esac
fail() {
  echo "::error title=neuron-gate release::$1"
  rm -f "$archive"
  exit 1
}
status="$(fetch "$url.sha256" "$archive.sha256")"
[ "$status" = "200" ] || fail "$url.sha256: HTTP $status; the archive cannot be verified, so it is not used"
expected="$(head -c 200 "$archive.sha256" | head -n 1 | cut -d' ' -f1 | tr 'A-F' 'a-f')"
[[ "$expected" =~ ^[0-9a-f]{64}$ ]] || fail "$url.sha256 holds no SHA-256"
actual="$(sha256sum "$archive" | cut -d' ' -f1)"
[ "$actual" = "$expected" ] || fail "checksum mismatch for $url: the .sha256 says $expected, the download is $actual; not used"
note "sha256 $actual verified"
rm -rf "${dest:?}/$name"
tar -C "$dest" -xzf "$archive" "$name/" || fail "$archive is not a neuron-gate release archive (no $name/)"
binary="$dest/$name/bin/neuron-gate"
version="$("$binary" --version 2>&1)" || fail "the released binary does not run here: $version"
note "using $version from $url"
output "binary=$binary"
