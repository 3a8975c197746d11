#!/usr/bin/python3
"""Real PyTorch profiles of the RMSNorm step at six operating points (docs/user-guide.md "Operating points").

Run with Debian's python3 and python3-torch (PyTorch 1.13, CPU only):

    /usr/bin/python3 scripts/profiles/gen_operating_points.py OUT   # tests/data/profiles/operating-points

Writes three sides, each one folder per operating point (shapes 4x512, 16x2048, 64x4096 in bfloat16
and float32; label "<rows>x<cols>-<dtype>"), each point holding its manifest neuron-gate.json (with
`operating_point`), its e2e.json (latency in ms, one sample list per process in `runs`) and one run
folder per process with one trace (export_chrome_trace, nothing edited):

    base/      separate eager ops (variant A of gen_rmsnorm.py) at every point
    head/      A, except at 16x2048-float32: Areg (a useless extra pow+mean per call), the regression
    partial/   A at every point but 64x4096-float32, plus 8x1024-float32 (a point base lacks)

Each run is a process of its own (`--one`), the sides' runs interleaved so that machine drift hits
every side alike: torch.set_num_threads(1), seed 0, torch.no_grad(), torch.profiler schedule wait=1
warmup=1 active=3 repeat=1 (one trace of three steps), record_shapes=True; then 40 un-profiled latency
samples of one call after 10 warm-up calls. OUT must not exist (nothing is overwritten).
"""
import argparse
import json
import os
import subprocess
import sys
import time

SCHEDULE = {"wait": 1, "warmup": 1, "active": 3, "repeat": 1}
RUNS, E2E_SAMPLES, WARMUP = 2, 40, 10
SHAPES = [(4, 512), (16, 2048), (64, 4096)]
DTYPES = ["bfloat16", "float32"]
REGRESSED_POINT = "16x2048-float32"
EPS = 1e-6


def label(shape, dtype):
    return f"{shape[0]}x{shape[1]}-{dtype}"


def sides():
    """side -> {point label: (shape, dtype, variant)}."""
    points = {label(s, d): (s, d) for s in SHAPES for d in DTYPES}
    base = {k: (s, d, "A") for k, (s, d) in points.items()}
    head = {k: (s, d, "Areg" if k == REGRESSED_POINT else "A") for k, (s, d) in points.items()}
    partial = {k: v for k, v in base.items() if k != "64x4096-float32"}
    partial["8x1024-float32"] = ((8, 1024), "float32", "A")
    return {"base": base, "head": head, "partial": partial}


def one_run(variant, rows, cols, dtype_name, out_dir):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    dtype = getattr(torch, dtype_name)
    x = torch.randn(rows, cols, dtype=dtype)
    w = torch.randn(cols, dtype=dtype)

    def rmsnorm(t):
        return t * torch.rsqrt(t.pow(2).mean(-1, keepdim=True) + EPS) * w

    def regressed(t):
        t.pow(2).mean(-1, keepdim=True)  # useless extra work: the regression
        return rmsnorm(t)

    fn = regressed if variant == "Areg" else rmsnorm
    os.makedirs(out_dir)

    def ready(prof):
        prof.export_chrome_trace(os.path.join(out_dir, f"rmsnorm.{int(time.time() * 1000)}.pt.trace.json"))

    steps = SCHEDULE["wait"] + SCHEDULE["warmup"] + SCHEDULE["active"]
    with torch.no_grad():
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    schedule=torch.profiler.schedule(**SCHEDULE),
                                    on_trace_ready=ready, record_shapes=True) as prof:
            for _ in range(steps):
                with torch.profiler.record_function("rmsnorm_step"):
                    fn(x)
                prof.step()
        for _ in range(WARMUP):
            fn(x)
        samples = []
        for _ in range(E2E_SAMPLES):
            t0 = time.perf_counter_ns()
            fn(x)
            samples.append(round((time.perf_counter_ns() - t0) / 1e6, 6))
    with open(os.path.join(out_dir, "e2e_samples.tmp"), "x") as f:
        json.dump(samples, f)


def manifest(point, shape, dtype, variant):
    return {"schema": "neuron-gate.manifest/1", "workload": "rmsnorm_step", "operating_point": point,
            "compilation_path": "eager", "device": "cpu",
            "versions": {"torch": torch.__version__.split("+")[0]},
            "profiler": {"activities": ["CPU"], "record_shapes": True, "with_stack": False},
            "schedule": SCHEDULE,
            "timing": {"warmup": WARMUP, "repetitions": E2E_SAMPLES, "calls_per_sample": 1},
            "inputs": [{"name": "x", "shape": list(shape), "dtype": dtype}],
            "notes": f"gen_operating_points.py, variant {variant}"}


def generate(out):
    if os.path.exists(out):
        raise SystemExit(f"{out} exists: refusing to overwrite")
    plan = sides()
    for run in range(1, RUNS + 1):
        for side, points in plan.items():
            for point, (shape, dtype, variant) in points.items():
                run_dir = os.path.join(out, side, point, f"run-{run:02d}")
                subprocess.run([sys.executable, os.path.abspath(__file__), "--one", variant, str(shape[0]),
                                str(shape[1]), dtype, run_dir], check=True)
                print(f"{run_dir} done", flush=True)
    for side, points in plan.items():
        for point, (shape, dtype, variant) in points.items():
            folder = os.path.join(out, side, point)
            runs = []
            for run in range(1, RUNS + 1):
                tmp = os.path.join(folder, f"run-{run:02d}", "e2e_samples.tmp")
                runs.append(json.load(open(tmp)))
                os.remove(tmp)
            doc = {"schema": "neuron-gate.e2e/1",
                   "metrics": [{"name": "latency", "unit": "ms", "better": "lower", "runs": runs}]}
            with open(os.path.join(folder, "e2e.json"), "x") as f:
                json.dump(doc, f)
            with open(os.path.join(folder, "neuron-gate.json"), "x") as f:
                json.dump(manifest(point, shape, dtype, variant), f, indent=1)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?")
    parser.add_argument("--one", nargs=5, metavar=("VARIANT", "ROWS", "COLS", "DTYPE", "DIR"), help="one run (internal)")
    args = parser.parse_args()
    import torch
    if args.one:
        one_run(args.one[0], int(args.one[1]), int(args.one[2]), args.one[3], args.one[4])
    elif args.out:
        generate(args.out)
    else:
        parser.error("give OUT (a folder that does not exist yet)")
