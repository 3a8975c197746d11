#!/usr/bin/env python3
"""Writes a real PyTorch 1.13 CPU trace whose step times have two modes: every third step also runs a
"logging" pass (a larger matmul), as gradient accumulation, logging or checkpoint steps do in training.

  /usr/bin/python3 scripts/profiles/gen_bimodal.py OUT_DIR
  /usr/bin/python3 scripts/profiles/gen_bimodal.py --by-process OUT_DIR

Writes OUT_DIR/every-third-step.pt.trace.json: schedule wait=1 warmup=1 active=12, one process, the
RMSNorm of the bundled examples on [4,512] each step, plus torch.mm on [256,256] on steps 0, 3, 6, 9.
Refuses to overwrite. Used by tests/test_compare_bimodal.cpp (tests/data/profiles/bimodal).

With --by-process: two modes that are whole processes, not steps (issue 38 item 7). Two runs, each its
own process: OUT_DIR/run-01/steady.pt.trace.json (the RMSNorm only) and OUT_DIR/run-02/slow.pt.trace.json
(the RMSNorm and the [256,256] matmul on every step, as a process that waits on another rank or shares
its core would be), schedule wait=1 warmup=1 active=8 each (tests/data/profiles/bimodal-processes).
"""

import os
import subprocess
import sys

import torch
from torch.profiler import ProfilerActivity, profile, schedule


def rmsnorm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


def one_process(out, slow):
    """One run: 8 active steps, each also running the matmul when `slow`."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    x, w = torch.randn(4, 512), torch.ones(512)
    big = torch.randn(256, 256)
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(wait=1, warmup=1, active=8),
                 on_trace_ready=lambda p: p.export_chrome_trace(out)) as prof:
        for _ in range(10):
            rmsnorm(x, w)
            if slow:
                torch.mm(big, big)
            prof.step()


def by_process(out_dir):
    if os.path.exists(out_dir):
        sys.exit(f"{out_dir} exists: not overwritten")
    for run, name, slow in (("run-01", "steady", False), ("run-02", "slow", True)):
        os.makedirs(os.path.join(out_dir, run))
        out = os.path.join(out_dir, run, name + ".pt.trace.json")
        # A process of its own per run, as separate runs are.
        subprocess.run([sys.executable, __file__, "--one-process", out, "1" if slow else "0"], check=True)
        print(out)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--one-process":
        one_process(sys.argv[2], sys.argv[3] == "1")
        return
    if len(sys.argv) == 3 and sys.argv[1] == "--by-process":
        by_process(sys.argv[2])
        return
    if len(sys.argv) != 2:
        sys.exit("usage: gen_bimodal.py [--by-process] OUT_DIR")
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
