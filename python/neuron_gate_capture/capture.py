"""capture(): profile and time one step function (or several, interleaved) and write what neuron-gate
reads. Layout of an output folder (one side, one operating point):

    OUT/neuron-gate.json             the run manifest
    OUT/<run>/e2e.json               un-profiled latency (and throughput) samples of this run
    OUT/<run>/trace_cycle<k>.json    one trace per profiler cycle (CPU, CUDA)
    OUT/<instance>_pid_<pid>/<timestamp>/trace.json + NEFF/NTFF/.pb   (Neuron: written by TorchNeuron)

<run> is one process; several runs of one side (run-01, run-02, ...) share the manifest.
"""

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from .device import Device, detect_device
from .errors import CaptureError
from .manifest import (build_manifest, collect_versions, describe_inputs, detect_compilation_path,
                       operating_point_label)
from .neuron import build_neuron_config
from .profiling import ProfilerOptions, Schedule, chrome_trace_exporter, profile_steps
from .timing import Timed, Timing, e2e_document, time_steps, write_json

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


@dataclass
class Result:
    """What one variant's capture wrote: the manifest document, the latency samples (ms), the
    number of traces exported and the folder of this run."""

    out: str
    manifest: Dict[str, Any]
    latency_ms: List[float]
    traces: int
    run_folder: str


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


def _prepare(variant: Variant, settings: Settings, device: Device) -> Dict[str, Any]:
    """Builds the manifest of a variant (and the NeuronConfig on Neuron, kept under "_neuron")."""
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
                "calls_per_sample": settings.timing.calls_per_sample, "interleaved": False},
        inputs=inputs,
        neuron_config=neuron.manifest if neuron else None,
        pairing_session=settings.pairing_session,
        model_version=settings.model_version,
        instance_type=settings.instance_type,
        notes=settings.notes,
    )
    return {"out": out, "manifest": manifest, "neuron": neuron}


def capture_variants(variants: Sequence[Variant], settings: Optional[Settings] = None) -> List[Result]:
    """Captures every variant into its own folder: first the un-profiled timing of all variants
    together (interleaved round by round when there are several, timing.interleaved then true in each
    manifest), then each variant's profiled steps. Writes OUT/neuron-gate.json, OUT/<run>/e2e.json and
    the traces. Raises CaptureError for bad settings, a missing device, two variants with one folder,
    or an output folder holding another capture.
    """
    settings = settings or Settings()
    settings.schedule.check()
    settings.timing.check()
    if not variants:
        raise CaptureError("nothing to capture")
    e2e_document([1.0], settings.work_per_step, settings.work_unit)  # bad work settings fail before any work
    device = detect_device(settings.device)
    prepared = [_prepare(variant, settings, device) for variant in variants]
    if len({p["out"] for p in prepared}) != len(prepared):
        raise CaptureError("each variant needs its own output folder")
    for p in prepared:
        p["manifest"]["timing"]["interleaved"] = len(variants) > 1
        _check_output(p["out"], p["manifest"], settings.append)
    run = settings.run or "run-%d" % os.getpid()
    samples = time_steps([Timed(v.step, v.inputs, device.synchronize) for v in variants], settings.timing)
    results = []
    for variant, p, latency in zip(variants, prepared, samples):
        run_folder = os.path.join(p["out"], run)
        neuron = p["neuron"]
        if neuron is not None and neuron.export_trace is not None:
            export_trace = neuron.export_trace
            export = lambda prof, cycle, export_trace=export_trace: export_trace(prof)  # noqa: E731
        else:
            export = chrome_trace_exporter(run_folder)
        traces = profile_steps(variant.step, variant.inputs, device, settings.schedule, settings.profiler, export,
                               neuron.config if neuron else None)
        write_json(os.path.join(run_folder, "e2e.json"), e2e_document(latency, settings.work_per_step, settings.work_unit))
        write_json(os.path.join(p["out"], MANIFEST_NAME), p["manifest"])
        results.append(Result(p["out"], p["manifest"], latency, traces, run_folder))
    return results


def capture(step: Callable[..., Any], out: str, inputs: Optional[Dict[str, Any]] = None, *,
            settings: Optional[Settings] = None, **variant_fields: Any) -> Result:
    """Captures one step function: capture(step, "profiles/head", {"x": x}, settings=Settings(...),
    operating_point="bs4"). `variant_fields` are Variant's workload, operating_point and
    compilation_path. Returns the Result (see capture_variants)."""
    return capture_variants([Variant(step=step, out=out, inputs=dict(inputs or {}), **variant_fields)], settings)[0]
