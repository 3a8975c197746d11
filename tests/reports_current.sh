#!/usr/bin/env bash
# The example reports in reports/ are what the current binary renders from the bundled examples:
# renders them into WORK_DIR with scripts/render-reports.sh and compares byte for byte; and README.md's
# "top of a real comment" is the top of reports/A-vs-Areg.md.
# Usage: reports_current.sh NEURON_GATE_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
binary="$1"
source_dir="$2"
work="$3"
rm -rf "$work"
mkdir -p "$work"
bash "$source_dir/scripts/render-reports.sh" "$binary" "$work" >/dev/null
status=0
for file in "$work"/* "$source_dir"/reports/*; do
  name="$(basename "$file")"
  case "$name" in README.md) continue ;; esac
  if [ ! -f "$source_dir/reports/$name" ]; then
    echo "FAILED - reports/$name is missing"
    status=1
  elif [ ! -f "$work/$name" ]; then
    echo "FAILED - reports/$name is no longer rendered"
    status=1
  elif ! cmp -s "$work/$name" "$source_dir/reports/$name"; then
    echo "FAILED - reports/$name differs from what the binary renders now:"
    diff -u "$source_dir/reports/$name" "$work/$name" | head -n 40
    status=1
  else
    echo "ok     - reports/$name"
  fi
done
# README.md shows the top of a real comment (section "Reports"): the lines between the markers
# "<!-- top of reports/A-vs-Areg.md -->" and the closing fence must be the report's first lines.
readme_top="$(awk '/^<!-- top of reports\/A-vs-Areg.md -->$/ { at = 1; next } at == 1 && /^```$/ { at = 2; next }
                  at == 2 && /^```$/ { exit } at == 2 { print }' "$source_dir/README.md")"
lines="$(printf '%s\n' "$readme_top" | wc -l)"
if [ -n "$readme_top" ] && [ "$readme_top" = "$(head -n "$lines" "$source_dir/reports/A-vs-Areg.md")" ]; then
  echo "ok     - README.md shows the first $lines lines of reports/A-vs-Areg.md"
else
  echo "FAILED - README.md's block after <!-- top of reports/A-vs-Areg.md --> is not the top of reports/A-vs-Areg.md"
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "Regenerate with: scripts/render-reports.sh $binary"
fi
exit "$status"
