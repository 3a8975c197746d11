#!/usr/bin/python3
"""Regenerates real PyTorch profiles of an RMSNorm step (examples/PROFILES-README.md).

Run with Debian's python3 and python3-torch (PyTorch 1.13, CPU only, no Kineto):

    /usr/bin/python3 scripts/profiles/gen_rmsnorm.py examples OUT   # the bundled example set (10 runs)
    /usr/bin/python3 scripts/profiles/gen_rmsnorm.py tests OUT      # tests/data/profiles (small)

Each run is a separate process (`--one VARIANT DIR`), runs of all variants of a set interleaved, so
machine drift hits every variant alike. One run: torch.set_num_threads(1), input of the variant's
shape (bfloat16, seed 0), torch.no_grad(), torch.profiler with schedule wait=2 warmup=1 active=1
repeat=8 for the examples (32 loop iterations, 8 traces of one active step each; repeat=3 for the
tests set; A_sched: wait=1 active=2), record_shapes=True; each trace is
written by export_chrome_trace (this build writes the legacy autograd-profiler format) beside its
key_averages tables (by self CPU; grouped by input shape), plus run_meta.json. After the profiled
loop, un-profiled latency samples of one call (ms) are taken for the variant's e2e.json.

Nothing written by the profiler is edited. Existing files are never overwritten: OUT must not hold
the variant folders already (the bundled examples' golden reports depend on the files as they are).
"""
import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import time

SCHEDULE = {"wait": 2, "warmup": 1, "active": 1, "repeat": 3}
# The bundled examples run 8 profiler cycles per process: the first cycle or two of a process run slow
# (warm-up, 2-3x), so with 3 cycles the samples were mostly warm-up and a +40% change under the profiler
# was lost in it (issues 12 and 14: traces-only A -> Areg must fail).
EXAMPLES_SCHEDULE = {"wait": 2, "warmup": 1, "active": 1, "repeat": 8}
EPS = 1e-6


def rmsnorm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def make_variant(name):
    """(callable(x) -> tensor, shape, repeats per step, description) of a variant."""
    import torch.nn.functional as F
    w = torch.randn(512, dtype=torch.bfloat16)
    b = torch.randn(512, dtype=torch.bfloat16)
    shape = [8, 512] if name == "A_8x512" else [4, 512]
    if name in ("A", "A2", "A_8x512", "A_sched", "rank0", "rank1", "rank1slow"):
        fn = lambda x: rmsnorm(x, w)
        role = "separate eager ops"
    elif name == "Areg":
        def fn(x):
            x.pow(2).mean(-1, keepdim=True)  # useless extra work: the regression
            return rmsnorm(x, w)
        role = "regression: A + useless 2nd pow+mean"
    elif name == "B":
        fn = lambda x: F.layer_norm(x, (512,), w, None, EPS)
        role = "single library op (F.layer_norm stand-in for a fused norm)"
    elif name == "C":
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(w, requires_grad=False)

            def forward(self, x):
                return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w
        m = torch.jit.freeze(torch.jit.script(M().eval()))
        fn = m
        role = "torch.jit.script + freeze of A"
    elif name == "Abias":
        # A new call site of an op A already runs: aten::add, now also on [4, 512] + [512].
        fn = lambda x: rmsnorm(x, w) + b
        role = "A plus a bias add: one new call site of aten::add (new input-shape list, same model inputs)"
    elif name == "LNbig":
        # A fused op at a larger shape: the row padded to 8192 and normalised by layer_norm (bf16).
        wb = torch.randn(8192, dtype=torch.bfloat16)
        fn = lambda x: F.layer_norm(F.pad(x, (0, 8192 - 512)), (8192,), wb, None, EPS)[..., :512]
        role = "separate ops replaced by layer_norm on rows padded to 8192: slower"
    elif name == "LN":
        fn = lambda x: F.layer_norm(x, (512,), w, None, EPS)
        role = "separate ops replaced by one layer_norm at the same shape: fewer ops"
    else:
        raise SystemExit(f"unknown variant {name}")
    repeats = 13 if name == "rank1slow" else 10 if name.startswith("rank") else 1
    return fn, shape, repeats, role


def write_tables(prof, prefix):
    ka = prof.key_averages()
    with open(prefix + ".key_averages.txt", "x") as f:
        f.write(ka.table(sort_by="self_cpu_time_total", row_limit=-1))
    kas = prof.key_averages(group_by_input_shape=True)
    with open(prefix + ".key_averages_by_shape.txt", "x") as f:
        f.write(kas.table(sort_by="self_cpu_time_total", row_limit=-1))


def one_run(variant, out_dir, worker, e2e_samples, tables, schedule):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    fn, shape, repeats, role = make_variant(variant)
    x = torch.randn(*shape, dtype=torch.bfloat16)
    os.makedirs(out_dir, exist_ok=True)
    worker = worker or f"{socket.gethostname()}_{os.getpid()}"
    trace_files = []

    def ready(prof):
        prefix = os.path.join(out_dir, f"{worker}.{int(time.time() * 1000)}")
        while os.path.exists(prefix + ".pt.trace.json"):
            prefix = os.path.join(out_dir, f"{worker}.{int(time.time() * 1000) + 1}")
        prof.export_chrome_trace(prefix + ".pt.trace.json")
        trace_files.append(os.path.basename(prefix) + ".pt.trace.json")
        if tables:
            write_tables(prof, prefix)

    iterations = (schedule["wait"] + schedule["warmup"] + schedule["active"]) * schedule["repeat"]
    out = None
    with torch.no_grad():
        start = time.perf_counter()
        with torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU],
                schedule=torch.profiler.schedule(**schedule),
                on_trace_ready=ready, record_shapes=True) as prof:
            for _ in range(iterations):
                with torch.profiler.record_function("rmsnorm_step"):
                    for _ in range(repeats):
                        out = fn(x)
                prof.step()
        wall = time.perf_counter() - start
        samples = []
        for _ in range(20):
            fn(x)  # warm-up, not sampled
        for _ in range(e2e_samples):
            t0 = time.perf_counter_ns()
            for _ in range(repeats):
                fn(x)
            samples.append(round((time.perf_counter_ns() - t0) / 1e6, 6))
    meta = {
        "note": "sidecar written by gen_rmsnorm.py, NOT by torch",
        "variant": variant, "role": role, "shape": shape, "dtype": "bfloat16", "eps": EPS, "seed": 0,
        "calls_per_step": repeats, "schedule": schedule,
        "profiler": {"activities": ["CPU"], "record_shapes": True, "with_stack": False,
                     "profile_memory": False, "grad_mode": "torch.no_grad()"},
        "loop_iterations": iterations, "record_function": "rmsnorm_step", "trace_files": trace_files,
        "wall_s_profiled_loop": round(wall, 4), "output_checksum": float(out.float().sum()),
        "env": {"torch": torch.__version__, "python": platform.python_version(),
                "kineto_available": bool(torch.autograd.kineto_available()), "num_threads": 1,
                "platform": platform.platform()},
    }
    with open(os.path.join(out_dir, "run_meta.json"), "x") as f:
        json.dump(meta, f, indent=1)
    with open(os.path.join(out_dir, "e2e_samples.tmp"), "x") as f:
        json.dump(samples, f)


# Sets: variant folder -> (variant, worker name or None, with tables, with e2e.json, schedule).
def plan(which):
    sched2 = {"wait": 1, "warmup": 1, "active": 2, "repeat": 8}
    if which == "examples":
        runs, e2e = 10, 20
        folders = {v: (v, None, True, True, EXAMPLES_SCHEDULE) for v in ["A", "A2", "Areg", "B", "C", "A_8x512"]}
        folders["A_sched"] = ("A_sched", None, True, True, sched2)
        return runs, e2e, {"rmsnorm-4x512/" + k: v for k, v in folders.items()}
    runs, e2e = 4, 25
    folders = {
        # (a) a new call site of an existing op, with end-to-end numbers, both directions.
        "new-call-site/A": ("A", None, True, True, SCHEDULE),
        "new-call-site/Abias": ("Abias", None, True, True, SCHEDULE),
        # (b) traces only: separate ops vs layer_norm, slower (padded) and at the same shape.
        "traces-only/A": ("A", None, False, False, SCHEDULE),
        "traces-only/LNbig": ("LNbig", None, False, False, SCHEDULE),
        "traces-only/LN": ("LN", None, False, False, SCHEDULE),
        # (c) two ranks per run, files rank-0.* and rank-1.*; head's rank 1 does 30% more work.
        "two-ranks/base@0": ("rank0", "rank-0", False, False, SCHEDULE),
        "two-ranks/base@1": ("rank1", "rank-1", False, False, SCHEDULE),
        "two-ranks/head@0": ("rank0", "rank-0", False, False, SCHEDULE),
        "two-ranks/head@1": ("rank1slow", "rank-1", False, False, SCHEDULE),
    }
    return runs, e2e, folders


def generate(which, out):
    runs, e2e, folders = plan(which)
    for folder in folders:
        side = folder.split("@")[0]
        if os.path.exists(os.path.join(out, side, "run-01")) and "@" not in folder:
            raise SystemExit(f"{os.path.join(out, side)} exists: refusing to overwrite")
    for run in range(1, runs + 1):
        for folder, (variant, worker, tables, with_e2e, schedule) in folders.items():
            side, _, rank = folder.partition("@")
            run_dir = os.path.join(out, side, f"run-{run:02d}")
            if rank:
                run_dir = os.path.join(run_dir, f"rank-{rank}.tmp")
            cmd = [sys.executable, os.path.abspath(__file__), "--one", variant, run_dir,
                   "--e2e-samples", str(e2e if with_e2e else 0), "--schedule", json.dumps(schedule)]
            if worker:
                cmd += ["--worker", worker]
            if tables:
                cmd += ["--tables"]
            subprocess.run(cmd, check=True)
            if rank:  # rank files side by side in the run folder; run_meta.json per rank
                final = os.path.dirname(run_dir)
                for name in os.listdir(run_dir):
                    target = name if name.startswith("rank-") else f"rank-{rank}.{name}"
                    os.rename(os.path.join(run_dir, name), os.path.join(final, target))
                os.rmdir(run_dir)
            print(f"{run_dir} done", flush=True)
    for folder, (variant, worker, tables, with_e2e, schedule) in folders.items():
        side = os.path.join(out, folder.split("@")[0])
        per_run = []  # one sample list per run (process): the between-run variation is what decides
        for run in range(1, runs + 1):
            samples = []
            for tmp in sorted(os.listdir(os.path.join(side, f"run-{run:02d}"))):
                if tmp.endswith("e2e_samples.tmp"):
                    path = os.path.join(side, f"run-{run:02d}", tmp)
                    samples += json.load(open(path))
                    os.remove(path)
            per_run.append(samples)
        if with_e2e:
            doc = {"schema": "neuron-gate.e2e/1",
                   "metrics": [{"name": "latency", "unit": "ms", "better": "lower", "runs": per_run}]}
            with open(os.path.join(side, "e2e.json"), "x") as f:
                json.dump(doc, f, indent=1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("set", nargs="?", choices=["examples", "tests"])
    parser.add_argument("out", nargs="?")
    parser.add_argument("--one", nargs=2, metavar=("VARIANT", "DIR"), help="one run (internal)")
    parser.add_argument("--worker")
    parser.add_argument("--tables", action="store_true")
    parser.add_argument("--e2e-samples", type=int, default=0)
    parser.add_argument("--schedule", default=json.dumps(SCHEDULE))
    args = parser.parse_args()
    import torch
    if args.one:
        one_run(args.one[0], args.one[1], args.worker, args.e2e_samples, args.tables, json.loads(args.schedule))
    elif args.set and args.out:
        generate(args.set, args.out)
    else:
        parser.error("give SET OUT (examples|tests and an output folder)")
