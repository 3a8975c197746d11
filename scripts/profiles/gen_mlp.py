#!/usr/bin/python3
"""Real PyTorch profiles of a small transformer MLP block, many runs of the same code (bench/decision.py).

Run with Debian's python3 and python3-torch (PyTorch 1.13, CPU only, no Kineto):

    /usr/bin/python3 scripts/profiles/gen_mlp.py OUT [--runs 10] [--steps 30] [--e2e-samples 30]

Writes OUT/A and OUT/A2: the same code, `--runs` runs (separate processes) each, runs of the two
interleaved (A run 1, A2 run 1, A run 2, ...) so that machine drift hits both alike; bench/decision.py
pools them as 2 x runs runs of one code. The approach is gen_rmsnorm.py's: each run is a process of its
own (`--one VARIANT DIR`), torch.set_num_threads(1), seed 0, torch.no_grad(), torch.profiler with
schedule wait=2 warmup=1 active=1 repeat=STEPS (one trace per active step, export_chrome_trace: this
build writes the legacy autograd-profiler format, whole microseconds), record_shapes=True, each step
wrapped in record_function("mlp_step"); then, un-profiled, 20 warm-up calls and `--e2e-samples` latency
samples (ms) of one step, written as that run's own `run-XX/e2e.json` (neuron-gate.e2e/1: several run
folders' e2e.json are several runs). Plus run_meta.json (the settings; a sidecar neuron-gate ignores).

The block: x of shape 2x8x32 (float32), LayerNorm(32) -> Linear(32, 128) -> GELU -> Linear(128, 32),
plus the residual. On the 2-core x86 VM of docs/decision-quality.md (shared, loaded) a step was ~137 us
under the profiler; median self CPU per step: `aten::addmm` 59 us (two calls), the `mlp_step` wrapper
28 us, `aten::gelu` 11.5 us, `aten::linear` 7 us, `aten::native_layer_norm` 6 us, `aten::t` 3 us;
`aten::layer_norm` and `aten::transpose` 2 us, where the 1-us timer quantum dominates. The 20 runs took
~1.5 min to write; a set of 10 runs a side with 30 steps is ~5 MB (600 traces): made at benchmark
time, not bundled.

Nothing written by the profiler is edited. Existing folders are never overwritten.
"""
import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import time

D_MODEL, HIDDEN, SHAPE = 32, 128, (2, 8, 32)
WARMUP_CALLS = 20


def one_run(variant, out_dir, steps, e2e_samples):
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(0)
    ln = torch.nn.LayerNorm(D_MODEL)
    fc1 = torch.nn.Linear(D_MODEL, HIDDEN)
    fc2 = torch.nn.Linear(HIDDEN, D_MODEL)
    act = torch.nn.GELU()
    x = torch.randn(*SHAPE)

    def block(x):
        return x + fc2(act(fc1(ln(x))))

    os.makedirs(out_dir, exist_ok=True)
    worker = f"{socket.gethostname()}_{os.getpid()}"
    trace_files = []

    def ready(prof):
        prefix = os.path.join(out_dir, f"{worker}.{int(time.time() * 1000)}")
        while os.path.exists(prefix + ".pt.trace.json"):
            prefix = os.path.join(out_dir, f"{worker}.{int(prefix.rsplit('.', 1)[1]) + 1}")
        prof.export_chrome_trace(prefix + ".pt.trace.json")
        trace_files.append(os.path.basename(prefix) + ".pt.trace.json")

    schedule = {"wait": 2, "warmup": 1, "active": 1, "repeat": steps}
    iterations = (schedule["wait"] + schedule["warmup"] + schedule["active"]) * schedule["repeat"]
    out = None
    with torch.no_grad():
        start = time.perf_counter()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    schedule=torch.profiler.schedule(**schedule),
                                    on_trace_ready=ready, record_shapes=True) as prof:
            for _ in range(iterations):
                with torch.profiler.record_function("mlp_step"):
                    out = block(x)
                prof.step()
        wall = time.perf_counter() - start
        for _ in range(WARMUP_CALLS):
            block(x)
        samples = []
        for _ in range(e2e_samples):
            t0 = time.perf_counter_ns()
            block(x)
            samples.append(round((time.perf_counter_ns() - t0) / 1e6, 6))
    meta = {
        "note": "sidecar written by gen_mlp.py, NOT by torch",
        "variant": variant, "role": "transformer MLP block (LayerNorm, Linear, GELU, Linear, residual)",
        "shape": list(SHAPE), "d_model": D_MODEL, "hidden": HIDDEN, "dtype": "float32", "seed": 0,
        "schedule": schedule, "loop_iterations": iterations, "record_function": "mlp_step",
        "profiler": {"activities": ["CPU"], "record_shapes": True, "with_stack": False,
                     "profile_memory": False, "grad_mode": "torch.no_grad()"},
        "trace_files": trace_files, "wall_s_profiled_loop": round(wall, 4),
        "output_checksum": float(out.sum()), "e2e_samples": e2e_samples,
        "env": {"torch": torch.__version__, "python": platform.python_version(),
                "kineto_available": bool(torch.autograd.kineto_available()), "num_threads": 1,
                "platform": platform.platform()},
    }
    with open(os.path.join(out_dir, "run_meta.json"), "x") as f:
        json.dump(meta, f, indent=1)
    if e2e_samples:
        doc = {"schema": "neuron-gate.e2e/1",
               "metrics": [{"name": "latency", "unit": "ms", "better": "lower", "samples": samples}]}
        with open(os.path.join(out_dir, "e2e.json"), "x") as f:
            json.dump(doc, f, indent=1)


def generate(out, runs, steps, e2e_samples, variants=("A", "A2")):
    for v in variants:
        if os.path.exists(os.path.join(out, v)):
            raise SystemExit(f"{os.path.join(out, v)} exists: refusing to overwrite")
    for run in range(1, runs + 1):
        for v in variants:
            run_dir = os.path.join(out, v, f"run-{run:02d}")
            subprocess.run([sys.executable, os.path.abspath(__file__), "--one", v, run_dir,
                            "--steps", str(steps), "--e2e-samples", str(e2e_samples)], check=True)
            print(f"{run_dir} done", flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?")
    parser.add_argument("--runs", type=int, default=10, help="runs (processes) per variant (10)")
    parser.add_argument("--steps", type=int, default=30, help="profiled steps (one-step traces) per run (30)")
    parser.add_argument("--e2e-samples", type=int, default=30, help="latency samples per run (30)")
    parser.add_argument("--one", nargs=2, metavar=("VARIANT", "DIR"), help="one run (internal)")
    args = parser.parse_args()
    if args.one:
        one_run(args.one[0], args.one[1], args.steps, args.e2e_samples)
    elif args.out:
        generate(args.out, args.runs, args.steps, args.e2e_samples)
    else:
        parser.error("give OUT, the folder to write A/ and A2/ into")
