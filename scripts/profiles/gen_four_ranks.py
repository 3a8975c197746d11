#!/usr/bin/python3
"""Writes a real 4-rank profile of a data-parallel RMSNorm step (tests/data/profiles/four-ranks).

Run with Debian's python3 and python3-torch (PyTorch 1.13, CPU only, no Kineto):

    /usr/bin/python3 scripts/profiles/gen_four_ranks.py OUT

OUT/base and OUT/head each hold one folder per rank, `rank-N/`, as a CI matrix job per rank would
write it: `rank-N/run-XX/rank-N.<ms>.pt.trace.json` (3 runs, each one launch of 4 processes joined by
torch.distributed's gloo backend on localhost) and `rank-N/e2e.json` (un-profiled latency of one step
on that rank, one sample list per run). One step: the RMSNorm of a 4x512 bfloat16 input 10 times, then
an all_reduce of the output across the ranks. Profiler schedule wait=1 warmup=1 active=1 repeat=3
(3 traces of one active step per process), record_shapes=True, one intra-op thread. Head's rank 3 runs
the RMSNorm 13 times per step (30% more work: a straggler), so every rank waits for it in all_reduce.

Nothing written by the profiler is edited. OUT must not exist.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import time

RANKS = 4
RUNS = 3
SCHEDULE = {"wait": 1, "warmup": 1, "active": 1, "repeat": 3}
E2E_SAMPLES = 15
EPS = 1e-6


def one_rank(rank, port, out_dir, repeats, samples_path):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=RANKS)
    w = torch.randn(512, dtype=torch.bfloat16)
    x = torch.randn(4, 512, dtype=torch.bfloat16)

    def step():
        out = x
        for _ in range(repeats):
            out = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w
        reduced = out.float()
        dist.all_reduce(reduced)
        return reduced

    os.makedirs(out_dir, exist_ok=True)

    def ready(prof):
        prefix = os.path.join(out_dir, f"rank-{rank}.{int(time.time() * 1000)}")
        while os.path.exists(prefix + ".pt.trace.json"):
            prefix += "1"
        prof.export_chrome_trace(prefix + ".pt.trace.json")

    iterations = (SCHEDULE["wait"] + SCHEDULE["warmup"] + SCHEDULE["active"]) * SCHEDULE["repeat"]
    with torch.no_grad():
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    schedule=torch.profiler.schedule(**SCHEDULE), on_trace_ready=ready,
                                    record_shapes=True) as prof:
            for _ in range(iterations):
                with torch.profiler.record_function("rmsnorm_step"):
                    step()
                prof.step()
        for _ in range(5):
            step()  # warm-up, not sampled
        samples = []
        for _ in range(E2E_SAMPLES):
            dist.barrier()
            t0 = time.perf_counter_ns()
            step()
            samples.append(round((time.perf_counter_ns() - t0) / 1e6, 6))
    dist.destroy_process_group()
    with open(samples_path, "x") as f:
        json.dump(samples, f)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def generate(out):
    if os.path.exists(out):
        raise SystemExit(f"{out} exists: refusing to overwrite")
    samples = {}  # (side, rank) -> one list per run
    for run in range(1, RUNS + 1):
        for side in ("base", "head"):
            port = free_port()
            procs = []
            for rank in range(RANKS):
                repeats = 13 if side == "head" and rank == RANKS - 1 else 10
                run_dir = os.path.join(out, side, f"rank-{rank}", f"run-{run:02d}")
                tmp = os.path.join(out, f"{side}-{rank}-{run}.samples.tmp")
                procs.append((side, rank, tmp, subprocess.Popen(
                    [sys.executable, os.path.abspath(__file__), "--one", str(rank), str(port), run_dir,
                     str(repeats), tmp])))
            for side_, rank, tmp, proc in procs:
                if proc.wait() != 0:
                    raise SystemExit(f"rank {rank} of {side_} run {run} failed")
                with open(tmp) as f:
                    samples.setdefault((side_, rank), []).append(json.load(f))
                os.remove(tmp)
            print(f"{side} run {run} done", flush=True)
    for (side, rank), runs in samples.items():
        doc = {"schema": "neuron-gate.e2e/1",
               "metrics": [{"name": "latency", "unit": "ms", "better": "lower", "runs": runs}]}
        with open(os.path.join(out, side, f"rank-{rank}", "e2e.json"), "x") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?")
    parser.add_argument("--one", nargs=5, metavar=("RANK", "PORT", "DIR", "REPEATS", "SAMPLES"), help="one rank (internal)")
    args = parser.parse_args()
    if args.one:
        one_rank(int(args.one[0]), int(args.one[1]), args.one[2], int(args.one[3]), args.one[4])
    elif args.out:
        generate(args.out)
    else:
        parser.error("give OUT, the folder to write")
