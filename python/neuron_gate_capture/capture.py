"""capture(): profile and time one step function (or several, interleaved) and write what neuron-gate
reads. Layout of an output folder (one side, one operating point):

    OUT/neuron-gate.json             the run manifest
    OUT/<run>/e2e.json               un-profiled latency, thread CPU time (and throughput) samples of this run
    OUT/<run>/trace_cycle<k>.json    one trace per profiler cycle (CPU, CUDA)
    OUT/<instance>_pid_<pid>/<timestamp>/trace.json + NEFF/NTFF/.pb   (Neuron: written by TorchNeuron)

<run> is one process; several runs of one side (run-01, run-02, ...) share the manifest.
"""

import contextlib
import importlib
import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from .device import Device, detect_device
from .errors import CaptureError
from .manifest import (GRAD_MODES, build_manifest, collect_versions, describe_inputs, detect_compilation_path,
                       grad_mode_name, operating_point_label)
from .neuron import build_neuron_config
from .profiling import ProfilerOptions, Schedule, chrome_trace_exporter, profile_steps
from .timing import Sampler, Timed, Timing, e2e_document, write_json

MANIFEST_NAME = "neuron-gate.json"


@dataclass
class Variant:
    """One side to capture: step(**inputs), written to `out`.

    workload: a name for the report ("model:step"); not a condition of the gate.
    operating_point: the label of the operating point (default: made from the inputs, "x=4x512:float32").
    compilation_path: "eager", "jit", "torch.compile" or free text (default: detected, see
    manifest.detect_compilation_path).
    """

    step: Callable[..., Any]
    out: str
    inputs: Dict[str, Any] = field(default_factory=dict)
    workload: Optional[str] = None
    operating_point: Optional[str] = None
    compilation_path: Optional[str] = None


@dataclass
class Settings:
    """Everything both sides of a comparison must share (the manifest records it all).

    device: "auto", "neuron", "cuda" or "cpu". work_per_step: work one step does (e.g. the batch size),
    giving a throughput metric in <work_unit>/s. neuron_*: NeuronConfig settings (Neuron only).
    run: the name of this run's folder (default run-<pid>). append: add a run to an output folder that
    already holds a capture with the same manifest (else a non-empty folder is refused).
    pairing_session: the capture session whose runs alternate base and head in separate processes (the
    manifest's "pairing"; neuron-gate then tests run i of base against run i of head).
    versions: extra names -> versions for the manifest (e.g. {"neuron_sdk": "2.26.0"}).
    threads: torch.set_num_threads(threads) before the capture (default: leave torch's setting as is);
    the manifest's "intra_op_threads" records torch.get_num_threads() either way.
    grad_mode: "enabled", "no_grad" or "inference_mode": the autograd mode the steps are called in
    (default: the caller's mode); the manifest's "grad_mode" records it either way.
    """

    schedule: Schedule = field(default_factory=Schedule)
    timing: Timing = field(default_factory=Timing)
    profiler: ProfilerOptions = field(default_factory=ProfilerOptions)
    device: str = "auto"
    work_per_step: Optional[float] = None
    work_unit: str = "samples"
    neuron_modes: Sequence[str] = ("DEVICE", "RUNTIME")
    neuron_cores: str = "0"
    neuron_max_events_per_nc: Optional[int] = None
    neff_cache_dir: Optional[str] = None
    model_version: Optional[str] = None
    instance_type: Optional[str] = None
    notes: Optional[str] = None
    versions: Dict[str, str] = field(default_factory=dict)
    run: Optional[str] = None
    append: bool = False
    pairing_session: Optional[str] = None
    threads: Optional[int] = None
    grad_mode: Optional[str] = None


@dataclass
class Result:
    """What one variant's capture wrote: the manifest document, the latency and thread CPU time
    samples (ms), the number of traces exported and the folder of this run."""

    out: str
    manifest: Dict[str, Any]
    latency_ms: List[float]
    traces: int
    run_folder: str
    thread_cpu_ms: List[float] = field(default_factory=list)


def _check_output(out: str, manifest: Dict[str, Any], append: bool) -> None:
    """Refuses an output folder holding another capture: non-empty without append, or (with append)
    holding a manifest that differs from this one."""
    if not os.path.isdir(out) or not os.listdir(out):
        return
    path = os.path.join(out, MANIFEST_NAME)
    if not append:
        raise CaptureError("%s is not empty: capture into a new folder (old files would be read as part of "
                           "this side), or add a run with append" % out)
    if os.path.exists(path):
        with open(path, encoding="utf-8") as existing:
            old = json.load(existing)
        if old != manifest:
            changed = sorted(k for k in set(old) | set(manifest) if old.get(k) != manifest.get(k))
            raise CaptureError("%s holds a capture made differently (%s differ): use a new folder"
                               % (path, ", ".join(changed)))


def _prepare(variant: Variant, settings: Settings, device: Device, run_state: Dict[str, Any]) -> Dict[str, Any]:
    """Builds the manifest of a variant (and the NeuronConfig on Neuron, kept under "_neuron");
    run_state holds "intra_op_threads", "grad_mode" and "bursts"."""
    out = os.path.abspath(variant.out)
    neuron = None
    if device.name == "neuron":
        neuron = build_neuron_config(out, settings.neuron_modes, settings.neuron_cores,
                                     settings.neuron_max_events_per_nc, settings.neff_cache_dir)
    inputs = describe_inputs(variant.inputs)
    manifest = build_manifest(
        workload=variant.workload or getattr(variant.step, "__qualname__", type(variant.step).__name__),
        operating_point=variant.operating_point or operating_point_label(inputs),
        compilation_path=variant.compilation_path or detect_compilation_path(variant.step, variant.inputs),
        device=device.name,
        versions=collect_versions(device.versions, settings.versions),
        profiler=dict({"activities": list(device.activity_names)}, **vars(settings.profiler)),
        schedule=settings.schedule.as_manifest(),
        timing={"warmup": settings.timing.warmup, "repetitions": settings.timing.repetitions,
                "calls_per_sample": settings.timing.calls_per_sample, "interleaved": False,
                "bursts": run_state["bursts"], "gate": settings.timing.gate},
        inputs=inputs,
        neuron_config=neuron.manifest if neuron else None,
        pairing_session=settings.pairing_session,
        model_version=settings.model_version,
        instance_type=settings.instance_type,
        notes=settings.notes,
        intra_op_threads=run_state["intra_op_threads"],
        grad_mode=run_state["grad_mode"],
    )
    return {"out": out, "manifest": manifest, "neuron": neuron}


def _run_state(settings: Settings, device: Device, variants: int) -> Dict[str, Any]:
    """Applies settings.threads and checks settings.grad_mode and the gate; returns the manifest's
    intra_op_threads and grad_mode (read inside the grad mode context) and the number of timing bursts:
    one before the profiled steps and one after each profiler cycle of each variant."""
    torch = importlib.import_module("torch")
    if settings.threads is not None:
        if not isinstance(settings.threads, int) or isinstance(settings.threads, bool) or settings.threads < 1:
            raise CaptureError("threads must be a positive integer, not %r" % (settings.threads,))
        torch.set_num_threads(settings.threads)
    if settings.grad_mode is not None and settings.grad_mode not in GRAD_MODES:
        raise CaptureError("grad mode must be one of %s, not %r" % (", ".join(GRAD_MODES), settings.grad_mode))
    threads = torch.get_num_threads()
    if settings.timing.gate == "thread_cpu_time" and (device.name != "cpu" or threads != 1):
        raise CaptureError("gating on thread_cpu_time needs device cpu and 1 intra-op thread (here %s, %d threads): "
                           "thread CPU time misses the time spent waiting for a device and the work of other threads"
                           % (device.name, threads))
    return {"intra_op_threads": threads, "grad_mode": settings.grad_mode or grad_mode_name(torch),
            "bursts": 1 + settings.schedule.repeat * variants}


def _grad_context(grad_mode: Optional[str]) -> Any:
    torch = importlib.import_module("torch")
    if grad_mode is None:
        return contextlib.nullcontext()
    return {"enabled": torch.enable_grad, "no_grad": torch.no_grad, "inference_mode": torch.inference_mode}[grad_mode]()


def capture_variants(variants: Sequence[Variant], settings: Optional[Settings] = None) -> List[Result]:
    """Captures every variant into its own folder. The un-profiled timing is taken in bursts spread over
    the run (timing.Sampler): after the warm-up, one burst before any profiled step and one after each
    profiler cycle of each variant (profiling.profile_steps' after_cycle, while the profiler is stopped);
    with several variants every burst times them all, interleaved round by round (timing.interleaved then
    true in each manifest). Writes OUT/neuron-gate.json, OUT/<run>/e2e.json and the traces. Raises
    CaptureError for bad settings, a missing device, two variants with one folder, an output folder
    holding another capture, or a step that changed torch's thread count during the capture.
    """
    settings = settings or Settings()
    settings.schedule.check()
    settings.timing.check()
    if not variants:
        raise CaptureError("nothing to capture")
    e2e_document([1.0], settings.work_per_step, settings.work_unit, [1.0])  # bad work settings fail before any work
    device = detect_device(settings.device)
    torch = importlib.import_module("torch")
    threads_before = torch.get_num_threads()
    with _grad_context(settings.grad_mode):
        try:
            return _capture_prepared(variants, settings, device)
        finally:
            if settings.threads is not None:
                torch.set_num_threads(threads_before)  # the caller's setting back


def _capture_prepared(variants: Sequence[Variant], settings: Settings, device: Device) -> List[Result]:
    """capture_variants once the device is known, inside the grad mode."""
    state = _run_state(settings, device, len(variants))
    prepared = [_prepare(variant, settings, device, state) for variant in variants]
    if len({p["out"] for p in prepared}) != len(prepared):
        raise CaptureError("each variant needs its own output folder")
    for p in prepared:
        p["manifest"]["timing"]["interleaved"] = len(variants) > 1
        _check_output(p["out"], p["manifest"], settings.append)
    return _measure(variants, prepared, settings, device, state)


def _measure(variants: Sequence[Variant], prepared: List[Dict[str, Any]], settings: Settings, device: Device,
             state: Dict[str, Any]) -> List[Result]:
    """The timing bursts and profiled steps of capture_variants, then the files."""
    torch = importlib.import_module("torch")
    run = settings.run or "run-%d" % os.getpid()
    sampler = Sampler([Timed(v.step, v.inputs, device.synchronize) for v in variants], settings.timing,
                      bursts=state["bursts"])
    sampler.warm_up()
    sampler.burst()
    traces = []
    for variant, p in zip(variants, prepared):
        neuron = p["neuron"]
        if neuron is not None and neuron.export_trace is not None:
            export_trace = neuron.export_trace
            export = lambda prof, cycle, export_trace=export_trace: export_trace(prof)  # noqa: E731
        else:
            export = chrome_trace_exporter(os.path.join(p["out"], run))
        traces.append(profile_steps(variant.step, variant.inputs, device, settings.schedule, settings.profiler, export,
                                    neuron.config if neuron else None, after_cycle=sampler.burst))
    if torch.get_num_threads() != state["intra_op_threads"]:
        raise CaptureError("the step changed torch's intra-op threads from %d to %d during the capture: set them "
                           "before it (in setup, or with threads / --threads)"
                           % (state["intra_op_threads"], torch.get_num_threads()))
    results = []
    for index, p in enumerate(prepared):
        run_folder = os.path.join(p["out"], run)
        latency, cpu = sampler.latency[index], sampler.thread_cpu[index]
        write_json(os.path.join(run_folder, "e2e.json"),
                   e2e_document(latency, settings.work_per_step, settings.work_unit, cpu, settings.timing.gate))
        write_json(os.path.join(p["out"], MANIFEST_NAME), p["manifest"])
        results.append(Result(p["out"], p["manifest"], latency, traces[index], run_folder, cpu))
    return results


def capture(step: Callable[..., Any], out: str, inputs: Optional[Dict[str, Any]] = None, *,
            settings: Optional[Settings] = None, **variant_fields: Any) -> Result:
    """Captures one step function: capture(step, "profiles/head", {"x": x}, settings=Settings(...),
    operating_point="bs4"). `variant_fields` are Variant's workload, operating_point and
    compilation_path. Returns the Result (see capture_variants)."""
    return capture_variants([Variant(step=step, out=out, inputs=dict(inputs or {}), **variant_fields)], settings)[0]
