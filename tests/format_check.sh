#!/usr/bin/env bash
# The house format (.clang-format) holds for every C++ file of src/, tests/ and fuzz/: prints the files
# that differ and how to fix them. Exit 77 (skipped) when clang-format is not installed.
set -euo pipefail
root="$1"
formatter=$(command -v clang-format || command -v clang-format-14 || true)
if [ -z "$formatter" ]; then
  echo "format: clang-format not installed (apt-get install clang-format); skipped"
  exit 77
fi
cd "$root"
mapfile -t files < <(find src tests fuzz -name '*.cpp' -o -name '*.hpp' | grep -v '/data/' | sort)
# One run over every file; its findings name the files ("path:line:col: error: code should be clang-formatted").
mapfile -t bad < <("$formatter" --dry-run --Werror "${files[@]}" 2>&1 | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: code should be clang-formatted.*/\1/p' | sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  printf 'format: %s differs from .clang-format\n' "${bad[@]}"
  echo "format: fix with: clang-format -i ${bad[*]}"
  exit 1
fi
echo "format: ${#files[@]} files as .clang-format says"
