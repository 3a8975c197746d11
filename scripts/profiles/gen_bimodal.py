#!/usr/bin/env python3
"""Writes a real PyTorch 1.13 CPU trace whose step times have two modes: every third step also runs a
"logging" pass (a larger matmul), as gradient accumulation, logging or checkpoint steps do in training.

  /usr/bin/python3 scripts/profiles/gen_bimodal.py OUT_DIR

Writes OUT_DIR/every-third-step.pt.trace.json: schedule wait=1 warmup=1 active=12, one process, the
RMSNorm of the bundled examples on [4,512] each step, plus torch.mm on [256,256] on steps 0, 3, 6, 9.
Refuses to overwrite. Used by tests/test_compare_bimodal.cpp (tests/data/profiles/bimodal).
"""

import os
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule


def rmsnorm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: gen_bimodal.py OUT_DIR")
    out = os.path.join(sys.argv[1], "every-third-step.pt.trace.json")
    if os.path.exists(out):
        sys.exit(f"{out} exists: not overwritten")
    os.makedirs(sys.argv[1], exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x, w = torch.randn(4, 512), torch.ones(512)
    big = torch.randn(256, 256)
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=12),
                 on_trace_ready=lambda p: p.export_chrome_trace(out)) as prof:
        for step in range(14):
            rmsnorm(x, w)
            if (step - 2) % 3 == 0:  # active steps 0, 3, 6, 9
                torch.mm(big, big)
            prof.step()
    print(out)


if __name__ == "__main__":
    main()
