"""python -m neuron_gate_capture: capture a user module's step function from the command line.

The module (a dotted name importable from the current folder, or a path to a .py file) exposes
`step(**inputs)` and, optionally, `setup(**args) -> dict` returning the inputs by name; --arg KEY=VALUE
pairs go to the setup of both variants, --module-arg to MODULE's only and --interleave-arg to the
--interleave variant's only (each overriding --arg). See docs/capture.md.
"""

import argparse
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import uuid
from typing import Any, Callable, Dict, List, Optional, Tuple

from .capture import MANIFEST_NAME, Settings, Variant, capture_variants
from .errors import CaptureError
from .profiling import ProfilerOptions, Schedule
from .timing import Timing, write_json


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m neuron_gate_capture",
        description="Profile a step function with a fixed schedule, time it un-profiled into e2e.json, and write "
                    "the run manifest neuron-gate.json, as neuron-gate compares them.")
    p.add_argument("module", help="MODULE[:STEP]: a dotted module name or a path to a .py file; STEP defaults to 'step'")
    p.add_argument("--out", required=True, help="output folder of this side (new or empty)")
    p.add_argument("--setup", default="setup", help="function returning the inputs (default: setup; none if missing)")
    p.add_argument("--arg", action="append", default=[], metavar="KEY=VALUE",
                   help="argument of setup (VALUE read as JSON when it parses, else as text); repeatable")
    p.add_argument("--module-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="argument of MODULE's setup only (overrides --arg); repeatable")
    p.add_argument("--interleave-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="argument of the --interleave variant's setup only (overrides --arg); repeatable")
    p.add_argument("--interleave", metavar="MODULE[:STEP]",
                   help="a second variant (e.g. the other side's checkout), timed interleaved with the first")
    p.add_argument("--interleave-out", help="output folder of the --interleave variant")
    g = p.add_argument_group("profiler schedule (torch.profiler.schedule)")
    for name, default in (("skip-first", 0), ("wait", 1), ("warmup", 1), ("active", 3), ("repeat", 3)):
        g.add_argument("--" + name, type=int, default=default, help="default %d" % default)
    g = p.add_argument_group("un-profiled timing (e2e.json)")
    g.add_argument("--timing-warmup", type=int, default=10, help="calls thrown away first (default 10)")
    g.add_argument("--repetitions", type=int, default=50,
                   help="samples (default 50), in bursts: before the profiled steps and after each profiler cycle")
    g.add_argument("--calls-per-sample", type=int, default=1, help="calls timed together per sample (default 1)")
    g.add_argument("--work-per-step", type=float, help="work one step does (e.g. batch size): adds throughput")
    g.add_argument("--work-unit", default="samples", help="unit of that work (default samples; throughput in UNIT/s)")
    g.add_argument("--gate", default="latency", choices=["latency", "thread_cpu_time"],
                   help="the end-to-end measure that decides (default latency; thread_cpu_time needs --device cpu and "
                        "--threads 1); the other is written as explaining, not gating")
    g.add_argument("--threads", type=int, help="torch.set_num_threads before the capture (default: as set up)")
    g.add_argument("--grad-mode", choices=["enabled", "no_grad", "inference_mode"],
                   help="autograd mode the steps run in (default: the caller's, normally enabled)")
    g = p.add_argument_group("device and profiler")
    g.add_argument("--device", default="auto", choices=["auto", "neuron", "cuda", "cpu"])
    g.add_argument("--no-record-shapes", action="store_true", help="record_shapes=False (default True)")
    g.add_argument("--with-stack", action="store_true")
    g.add_argument("--profile-memory", action="store_true")
    g.add_argument("--with-flops", action="store_true")
    g.add_argument("--neuron-cores", default="0", help="NeuronConfig capture_enabled_for_nc (default 0)")
    g.add_argument("--neuron-modes", default="DEVICE,RUNTIME", help="NeuronConfig modes (default DEVICE,RUNTIME)")
    g.add_argument("--max-events-per-nc", type=int, help="NeuronConfig max_events_per_nc")
    g.add_argument("--neff-cache-dir", help="NeuronConfig neff_cache_dir (NEFFs copied into the capture)")
    g = p.add_argument_group("manifest")
    g.add_argument("--operating-point", help="label of the operating point (default: made from the inputs)")
    g.add_argument("--workload", help="name of the workload (default MODULE:STEP; shown, not compared)")
    g.add_argument("--model-version")
    g.add_argument("--instance-type")
    g.add_argument("--compilation-path", help="eager, jit, torch.compile or free text (default: detected)")
    g.add_argument("--version", action="append", default=[], metavar="NAME=VALUE",
                   help="extra version for the manifest, e.g. neuron_sdk=2.26.0; repeatable")
    g.add_argument("--notes")
    g = p.add_argument_group("runs")
    g.add_argument("--runs", type=int, default=1, help="separate processes, one run folder each (default 1)")
    g.add_argument("--run", help="name of this run's folder (default run-<pid>)")
    g.add_argument("--append", action="store_true", help="add a run to a folder holding the same capture")
    g.add_argument("--only", choices=["base", "interleave"], help=argparse.SUPPRESS)  # one side of a paired run
    g.add_argument("--pairing-session", help=argparse.SUPPRESS)
    return p


def _pairs(items: List[str], what: str, as_json: bool) -> Dict[str, Any]:
    result: Dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CaptureError("%s must be KEY=VALUE, not %r" % (what, item))
        parsed: Any = value
        if as_json:
            try:
                parsed = json.loads(value)
            except ValueError:
                parsed = value
        result[key] = parsed
    return result


def _user_modules(before: Dict[str, Any]) -> Dict[str, str]:
    """Modules imported since `before` (a copy of sys.modules) from files outside the Python
    installation and its site-packages: the user's own code, name -> file."""
    prefixes = tuple(os.path.realpath(p) + os.sep for p in {sys.prefix, sys.base_prefix, sys.exec_prefix})
    found = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if name in before or not path:
            continue
        path = os.path.realpath(path)
        if not path.startswith(prefixes) and "site-packages" not in path and "dist-packages" not in path:
            found[name] = path
    return found


class _Isolation:
    """Loads each variant's module with a fresh view of the user's modules: the modules a previous
    variant imported from its own folder are taken out of sys.modules first (its functions keep
    theirs), so that `--interleave head/step.py` imports head's helpers, not base's already imported
    ones of the same name. Warns when two variants still import one file (shared code)."""

    def __init__(self) -> None:
        self.loaded: List[Dict[str, str]] = []

    def load(self, spec: str, setup_name: str) -> Tuple[Callable[..., Any], Optional[Callable[..., Any]], str]:
        for modules in self.loaded:
            for name in modules:
                sys.modules.pop(name, None)
        before = dict(sys.modules)
        result = load_step(spec, setup_name)
        modules = _user_modules(before)
        for earlier in self.loaded:
            shared = sorted(set(earlier.values()) & set(modules.values()))
            if shared:
                print("neuron-gate-capture: warning: the variants both import %s: that code is the same on both "
                      "sides" % ", ".join(shared), file=sys.stderr)
        self.loaded.append(modules)
        return result


def load_step(spec: str, setup_name: str) -> Tuple[Callable[..., Any], Optional[Callable[..., Any]], str]:
    """(step, setup or None, workload name) of "MODULE[:STEP]". A path ending in .py is loaded under a
    name of its own (so two checkouts' model.py do not collide), with its folder first on sys.path
    while it is imported. Raises CaptureError when the module or the step cannot be found."""
    module_part, step_name = spec, "step"
    if ":" in spec and spec.rsplit(":", 1)[1].isidentifier():
        module_part, step_name = spec.rsplit(":", 1)
    if module_part.endswith(".py"):
        path = os.path.abspath(module_part)
        if not os.path.isfile(path):
            raise CaptureError("no such file: %s" % module_part)
        name = "_neuron_gate_capture_user_%d" % len([m for m in sys.modules if m.startswith("_neuron_gate_capture_user_")])
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[name] = module
        sys.path.insert(0, os.path.dirname(path))
        try:
            module_spec.loader.exec_module(module)
        finally:
            sys.path.remove(os.path.dirname(path))
        workload = "%s:%s" % (os.path.splitext(os.path.basename(path))[0], step_name)
    else:
        if os.getcwd() not in sys.path and "" not in sys.path:
            sys.path.insert(0, os.getcwd())
        try:
            module = importlib.import_module(module_part)
        except ImportError as error:
            raise CaptureError("cannot import %s: %s" % (module_part, error))
        workload = "%s:%s" % (module_part, step_name)
    step = getattr(module, step_name, None)
    if not callable(step):
        raise CaptureError("%s has no function %s" % (module_part, step_name))
    setup = getattr(module, setup_name, None)
    if setup is not None and not callable(setup):
        raise CaptureError("%s.%s is not a function" % (module_part, setup_name))
    return step, setup, workload


def _variant(spec: str, out: str, args: argparse.Namespace, setup_args: Dict[str, Any],
             isolation: _Isolation) -> Variant:
    step, setup, workload = isolation.load(spec, args.setup)
    inputs = setup(**setup_args) if setup else {}
    if setup_args and not setup:
        raise CaptureError("--arg given, but %s has no %s function" % (spec, args.setup))
    if not isinstance(inputs, dict):
        raise CaptureError("%s must return a dict of inputs by name, not %s" % (args.setup, type(inputs).__name__))
    return Variant(step=step, out=out, inputs=inputs, workload=args.workload or workload,
                   operating_point=args.operating_point, compilation_path=args.compilation_path)


def _settings(args: argparse.Namespace) -> Settings:
    return Settings(
        schedule=Schedule(wait=args.wait, warmup=args.warmup, active=args.active, repeat=args.repeat,
                          skip_first=args.skip_first),
        timing=Timing(warmup=args.timing_warmup, repetitions=args.repetitions, calls_per_sample=args.calls_per_sample,
                      gate=args.gate),
        profiler=ProfilerOptions(record_shapes=not args.no_record_shapes, with_stack=args.with_stack,
                                 profile_memory=args.profile_memory, with_flops=args.with_flops),
        device=args.device, work_per_step=args.work_per_step, work_unit=args.work_unit,
        neuron_modes=tuple(m.strip() for m in args.neuron_modes.split(",") if m.strip()),
        neuron_cores=args.neuron_cores, neuron_max_events_per_nc=args.max_events_per_nc,
        neff_cache_dir=args.neff_cache_dir, model_version=args.model_version, instance_type=args.instance_type,
        notes=args.notes, versions=_pairs(args.version, "--version", False), run=args.run, append=args.append,
        pairing_session=args.pairing_session, threads=args.threads, grad_mode=args.grad_mode)


def _run_processes(argv: List[str], args: argparse.Namespace) -> int:
    """--runs N: N child processes one after the other, run-01 ... run-N, each appending a run. With
    --interleave, each run is two processes, one a side, in alternating order (base first in odd runs,
    the other variant first in even ones), and both manifests name one pairing session: no variant's code
    is loaded into the other's process, drift between runs cancels within each pair, and neuron-gate tests
    the pairs (docs/decision-rule.md "Paired runs")."""
    for out in filter(None, (args.out, args.interleave_out)):
        if os.path.isdir(out) and os.listdir(out) and not args.append:
            raise CaptureError("%s is not empty: capture into a new folder" % out)
    session = uuid.uuid4().hex if args.interleave else None
    order = []  # "base/run-01", "head/run-01", "head/run-02", ...: the capture order, written into both manifests
    for index in range(1, args.runs + 1):
        run = "run-%02d" % index
        command = [sys.executable, "-m", "neuron_gate_capture"] + argv + ["--runs", "1", "--run", run, "--append"]
        sides = [["--only", "base"], ["--only", "interleave"]] if session else [[]]
        if index % 2 == 0:
            sides.reverse()
        for side in sides:
            code = subprocess.call(command + side + (["--pairing-session", session] if session else []))
            if code != 0:
                return code
            if session:
                order.append(("base/" if side[1] == "base" else "head/") + run)
    if session:
        for out in (args.out, args.interleave_out):
            path = os.path.join(out, MANIFEST_NAME)
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
            document["pairing"]["order"] = order
            write_json(path, document)
    return 0


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command line; returns the exit code: 0 done, 2 bad usage or a capture that cannot be made
    (the message on stderr). Errors raised by the user's own code propagate with their traceback."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["explorer-to-json"]:  # Explorer's Parquet -> the gate's trace JSON (explorer.py)
        from .explorer import main as explorer_main
        return explorer_main(argv[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        if bool(args.interleave) != bool(args.interleave_out):
            raise CaptureError("--interleave and --interleave-out go together")
        if args.runs < 1:
            raise CaptureError("--runs must be at least 1")
        if args.interleave_arg and not args.interleave:
            raise CaptureError("--interleave-arg needs --interleave (it goes to that variant's setup)")
        for items, option in ((args.arg, "--arg"), (args.module_arg, "--module-arg"),
                              (args.interleave_arg, "--interleave-arg")):
            _pairs(items, option, True)  # a malformed pair fails before any process starts
        if args.interleave_out and os.path.realpath(args.interleave_out) == os.path.realpath(args.out):
            raise CaptureError("each variant needs its own output folder")
        if args.runs > 1 or (args.interleave and not args.only):
            # Variants are never loaded into one process: a PR's import-time change (a default dtype, a
            # monkey-patch) would run inside base's process too (issue 37 item 3).
            return _run_processes(argv, args)
        setup_args = _pairs(args.arg, "--arg", True)
        module_args = dict(setup_args, **_pairs(args.module_arg, "--module-arg", True))
        interleave_args = dict(setup_args, **_pairs(args.interleave_arg, "--interleave-arg", True))
        isolation = _Isolation()
        variants = []
        if args.only != "interleave":
            variants.append(_variant(args.module, args.out, args, module_args, isolation))
        if args.interleave and args.only != "base":
            variants.append(_variant(args.interleave, args.interleave_out, args, interleave_args, isolation))
        results = capture_variants(variants, _settings(args))
    except CaptureError as error:
        print("neuron-gate-capture: error: %s" % error, file=sys.stderr)
        return 2
    for result in results:
        latency, cpu = sorted(result.latency_ms), sorted(result.thread_cpu_ms)
        print("%s: %d traces, %d samples, median latency %.6g ms, thread CPU time %.6g ms (%s)" % (
            result.out, result.traces, len(latency), latency[len(latency) // 2], cpu[len(cpu) // 2], result.run_folder))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
