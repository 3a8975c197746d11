#!/usr/bin/env bash
# The README stays short and its links, workflow and output stay current (issue 41 items 1 and 2):
#   - README.md has at most 250 lines;
#   - every relative Markdown link in README.md and docs/*.md names a file or folder that exists and,
#     for an #anchor into a Markdown file (or the same file), a heading of that file (GitHub's anchors);
#   - README.md's "Gate your PRs" workflow is byte for byte the first workflow of docs/github-action.md
#     (which tests/action/validate_action.sh validates);
#   - given the binary, the Quick start's output block (after "<!-- output of scripts/demo-compare.sh -->")
#     is what scripts/demo-compare.sh prints, with the report folder written as /…/neuron-gate/build/demo.
# Usage: readme_links.sh SOURCE_DIR [NEURON_GATE_BINARY WORK_DIR]
set -uo pipefail
source_dir="$1"
binary="${2:-}"
work_dir="${3:-}"
status=0
lines="$(wc -l < "$source_dir/README.md")"
if [ "$lines" -le 250 ]; then
  echo "ok     - README.md has $lines lines (at most 250)"
else
  echo "FAILED - README.md has $lines lines, more than 250: move reference material into docs/"
  status=1
fi
python3 - "$source_dir" <<'PY' || status=1
import os, re, sys, glob
root = sys.argv[1]
files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))

def strip_code(text):
    text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)

def anchors(path, cache={}):
    if path not in cache:
        text = open(path, encoding="utf-8").read()
        text = re.sub(r"^(```|~~~).*?^\1[^\n]*$", "", text, flags=re.S | re.M)
        seen, found = {}, set()
        for m in re.finditer(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.M):
            slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            found.add(slug if n == 0 else f"{slug}-{n}")
        found |= set(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
        cache[path] = found
    return cache[path]

bad = checked = 0
for path in files:
    rel_file = os.path.relpath(path, root)
    text = strip_code(open(path, encoding="utf-8").read())
    for m in re.finditer(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text):
        target = m.group(1)
        if re.match(r"[a-z][a-z0-9+.-]*:", target, re.I):
            continue  # https:, mailto: ...
        checked += 1
        file_part, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
        if not os.path.exists(dest):
            print(f"FAILED - {rel_file}: link ({target}) names {os.path.relpath(dest, root)}, which does not exist")
            bad += 1
            continue
        if anchor and dest.endswith(".md") and anchor not in anchors(dest):
            print(f"FAILED - {rel_file}: link ({target}): {os.path.relpath(dest, root)} has no heading #{anchor}")
            bad += 1
print(("ok     - " if bad == 0 else "FAILED - ") + f"{checked} relative links in README.md and docs/*.md, {bad} broken")
sys.exit(1 if bad else 0)
PY
python3 - "$source_dir" <<'PY' || status=1
import re, sys
root = sys.argv[1]
def first(path):
    m = re.search(r"```yaml\n# \.github/workflows/neuron-gate\.yml\n.*?```", open(path, encoding="utf-8").read(), re.S)
    return m.group(0) if m else None
readme, docs = first(f"{root}/README.md"), first(f"{root}/docs/github-action.md")
if readme is not None and readme == docs:
    print("ok     - README.md's workflow is docs/github-action.md's .github/workflows/neuron-gate.yml")
else:
    print("FAILED - README.md's .github/workflows/neuron-gate.yml block is missing or differs from docs/github-action.md's")
    sys.exit(1)
PY
if [ -n "$binary" ]; then
  rm -rf "$work_dir"
  mkdir -p "$work_dir/neuron-gate/build/demo"
  out="$(cd "$work_dir/neuron-gate/build/demo" && pwd)"
  bash "$source_dir/scripts/demo-compare.sh" "$binary" "$out" > "$work_dir/stdout" 2>&1
  actual="$(sed "s|$(dirname "$(dirname "$out")")|/…/neuron-gate|g" "$work_dir/stdout")"
  shown="$(awk '/^<!-- output of scripts\/demo-compare.sh -->$/ { at = 1; next } at == 1 && /^```$/ { at = 2; next }
                at == 2 && /^```$/ { exit } at == 2 { print }' "$source_dir/README.md")"
  if [ -n "$shown" ] && [ "$shown" = "$actual" ]; then
    echo "ok     - README.md's Quick start output is what scripts/demo-compare.sh prints"
  else
    echo "FAILED - README.md's Quick start output differs from scripts/demo-compare.sh's; it prints:"
    printf '%s\n' "$actual"
    status=1
  fi
fi
exit "$status"
