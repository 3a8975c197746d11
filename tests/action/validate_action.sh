#!/usr/bin/env bash
# Validates action.yml, post-comment/action.yml, .github/workflows/*.yml and the example workflows in docs/github-action.md
# against GitHub's schemas with @action-validator/cli (from the npm registry), and checks that the
# validator rejects a broken action (so a pass means something).
#
# Usage: validate_action.sh NPM_DIR     (ctest: action-validate, NPM_DIR = <build>/npm)
# The validator is installed into NPM_DIR (npm install --prefix), once; nothing is committed. Without npm
# (or without the registry) this fails: it never skips.
# Prints "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

validator_version="0.6.0"
if [ $# -ne 1 ]; then
  echo "usage: validate_action.sh NPM_DIR" >&2
  echo "0 passed, 1 failed"
  exit 2
fi
npm_dir="$1"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok     - $1"; }
fail() { failed=$((failed + 1)); echo "FAILED - $1"; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
  fail "npm and node are required to install @action-validator/cli (Debian: apt-get install nodejs npm)"
  finish
fi

validator="$npm_dir/node_modules/.bin/action-validator"
installed="$(node -p "require('$npm_dir/node_modules/@action-validator/cli/package.json').version" 2>/dev/null || true)"
if [ "$installed" != "$validator_version" ] || [ ! -x "$validator" ]; then
  mkdir -p "$npm_dir"
  if npm install --prefix "$npm_dir" --no-audit --no-fund "@action-validator/cli@$validator_version" > "$tmp/npm.log" 2>&1; then
    pass "installed @action-validator/cli@$validator_version into $npm_dir"
  else
    cat "$tmp/npm.log"
    fail "npm install @action-validator/cli@$validator_version"
    finish
  fi
else
  pass "@action-validator/cli@$validator_version already in $npm_dir"
fi

validate() { # validate FILE DESCRIPTION
  if "$validator" "$1" > "$tmp/out" 2>&1; then
    pass "$2"
  else
    cat "$tmp/out"
    fail "$2"
  fi
}

validate "$root/action.yml" "action.yml is a valid action"
validate "$root/post-comment/action.yml" "post-comment/action.yml is a valid action"
# The repository's own workflows (.github/workflows/release.yml builds and publishes the release binaries).
workflows=("$root"/.github/workflows/*.yml)
if [ -e "${workflows[0]}" ]; then
  for workflow in "${workflows[@]}"; do
    validate "$workflow" ".github/workflows/$(basename "$workflow") is a valid workflow"
  done
else
  fail "no workflow in .github/workflows (release.yml is expected)"
fi

# The example workflows of docs/github-action.md (README.md's "Gate your PRs" workflow is a byte-identical
# copy of its first, checked by tests/readme_links.sh): each yaml block starting with
# "# .github/workflows/NAME".
extract_status=0
python3 - "$root/docs/github-action.md" "$tmp/workflows" > "$tmp/extracted" <<'PY' || extract_status=$?
import os, re, sys
text = open(sys.argv[1], encoding="utf-8").read()
os.makedirs(sys.argv[2], exist_ok=True)
for block in re.findall(r"```yaml\n(.*?)```", text, re.S):
    match = re.match(r"# \.github/workflows/([\w.-]+\.ya?ml)\n", block)
    if match:
        with open(os.path.join(sys.argv[2], match.group(1)), "w", encoding="utf-8") as f:
            f.write(block)
        print(match.group(1))
PY
if [ "$extract_status" -ne 0 ]; then
  fail "extract the example workflows from docs/github-action.md"
else
  count="$(grep -c . "$tmp/extracted")"
  if [ "$count" -ge 6 ]; then
    pass "docs/github-action.md has $count example workflows (gate, fork-safe pair, warm, stored-baseline pair)"
  else
    fail "docs/github-action.md has $count example workflows, expected at least 6"
  fi
  while read -r name; do
    validate "$tmp/workflows/$name" "docs/github-action.md example .github/workflows/$name is a valid workflow"
    grep -q "neuron-gate" "$tmp/workflows/$name" || fail "docs/github-action.md example $name does not use the action"
  done < "$tmp/extracted"
fi

# A broken action must be rejected: a run step without `shell`, an unknown key.
mkdir -p "$tmp/broken"
cat > "$tmp/broken/action.yml" <<'YAML'
name: broken
description: a composite action the validator must reject
runs:
  using: composite
  steps:
    - run: echo no shell
      colour: red
YAML
if "$validator" "$tmp/broken/action.yml" > "$tmp/out" 2>&1; then
  fail "the validator accepted a broken action (it validates nothing)"
else
  pass "the validator rejects a broken action"
fi

finish
