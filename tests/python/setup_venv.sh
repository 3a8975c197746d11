#!/usr/bin/env bash
# ctest fixture python-capture-venv: a virtual environment with Debian's torch (system site packages)
# and the capture helper installed from a copy of python/ with the plain `pip install` a user runs (its
# in-tree build backend needs nothing from an index, so this works offline; the copy keeps the source
# tree free of build files).
# Usage: setup_venv.sh SOURCE_DIR WORK_DIR   (creates WORK_DIR/venv)
set -euo pipefail
source_dir=$1
work=$2
python=/usr/bin/python3
"$python" -c 'import torch' || { echo "Debian's python3-torch is missing: run scripts/install-deps.sh" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cp -r "$source_dir/python" "$work/package"
"$python" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$work/package"
# The helper must come from the venv's site-packages, torch from Debian's.
"$work/venv/bin/python" - "$work/venv" <<'PY'
import os, sys
import neuron_gate_capture, torch
venv = os.path.realpath(sys.argv[1])
where = os.path.realpath(neuron_gate_capture.__file__)
assert where.startswith(venv + os.sep), "neuron_gate_capture imported from %s, not the venv" % where
print("neuron_gate_capture %s in %s; torch %s from %s" % (neuron_gate_capture.__version__, where, torch.__version__,
                                                         torch.__file__))
PY
