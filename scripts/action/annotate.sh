#!/usr/bin/env bash
# Prints the GitHub annotations (workflow commands) for one neuron-gate run, at most 10 of each kind:
#   ::error::   gating metrics that REGRESSED (no waiver); differing conditions (not comparable); under
#               --strict (exit 4) the gating metrics left INCONCLUSIVE/INSUFFICIENT; a usage/input error
#   ::warning:: non-gating or waived regressions, STRUCTURAL, INSUFFICIENT, INCONCLUSIVE metrics
# and one ::notice:: saying how many were left out. Reads the JSON report's conditions[] and metrics[]
# (verdict, gating, name, class, ratio, ...).
# Usage: annotate.sh REPORT_JSON EXIT_CODE [STDERR_FILE] [MAX_PER_KIND]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ $# -lt 2 ]; then
  echo "usage: annotate.sh REPORT_JSON EXIT_CODE [STDERR_FILE] [MAX_PER_KIND]" >&2
  exit 2
fi
exec python3 "$here/action_json.py" annotations "$1" "$2" "${3:-/dev/null}" "${4:-10}"
