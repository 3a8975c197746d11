"""python -m neuron_gate_capture (see cli.py)."""

import sys

from .cli import main

sys.exit(main())
