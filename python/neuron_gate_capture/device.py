"""The device a step runs on and how to profile it (docs/NEURON-FORMATS.md section 1.1).

Neuron when TorchNeuron (`torch_neuronx`) is importable, else CUDA when available, else CPU. Each
device brings the profiler activities that record it and the call that waits for its queued work:

| device | activities                 | synchronize                                        |
|--------|----------------------------|----------------------------------------------------|
| neuron | CPU, PrivateUse1           | torch.neuron.synchronize(), else torch_neuronx.synchronize() |
| cuda   | CPU, CUDA                  | torch.cuda.synchronize()                           |
| cpu    | CPU                        | nothing (CPU ops run synchronously)                |
"""

import importlib
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional

from .errors import CaptureError

# Distributions whose versions go to the manifest's "versions" when installed (name in the manifest,
# distribution name). Looked up with importlib.metadata: nothing is imported for it.
NEURON_DISTRIBUTIONS = [
    ("torch_neuronx", "torch-neuronx"),
    ("neuronx_cc", "neuronx-cc"),
    ("libneuronxla", "libneuronxla"),
    ("neuronx_distributed", "neuronx-distributed"),
    ("torch_xla", "torch-xla"),
]


@dataclass
class Device:
    """What the capture needs to know of a device.

    name: "neuron", "cuda" or "cpu" (the manifest's "device").
    activities: torch.profiler.ProfilerActivity members to pass to torch.profiler.profile.
    activity_names: the same as names ("CPU", "PrivateUse1", "CUDA"), for the manifest.
    synchronize: waits until the device has finished the work queued so far.
    neuron: the imported torch_neuronx module on Neuron, else None.
    versions: name -> version of the device's software (torch_neuronx, neuronx_cc, cuda, ...).
    """

    name: str
    activities: List[Any]
    activity_names: List[str]
    synchronize: Callable[[], None]
    neuron: Any = None
    versions: Dict[str, str] = field(default_factory=dict)


def _try_import(name: str) -> Optional[Any]:
    """The module, or None when it is missing or fails to import (a broken SDK must not look present)."""
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - any failure means "not usable here"
        return None


def distribution_version(distribution: str) -> Optional[str]:
    """The installed version of a distribution (e.g. "neuronx-cc"), or None when not installed."""
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8
        return None
    try:
        return metadata.version(distribution)
    except Exception:  # noqa: BLE001 - PackageNotFoundError or a broken installation
        return None


def _activity(torch: Any, name: str) -> Any:
    activity_type = torch.profiler.ProfilerActivity
    if not hasattr(activity_type, name):
        raise CaptureError(
            "this torch (%s) has no torch.profiler.ProfilerActivity.%s: the %s activity cannot be recorded"
            % (torch.__version__, name, name)
        )
    return getattr(activity_type, name)


def _neuron_synchronize(torch: Any, neuronx: Any) -> Callable[[], None]:
    neuron = getattr(torch, "neuron", None)
    if neuron is not None and callable(getattr(neuron, "synchronize", None)):
        return neuron.synchronize
    if callable(getattr(neuronx, "synchronize", None)):
        return neuronx.synchronize
    raise CaptureError(
        "torch_neuronx is importable but neither torch.neuron.synchronize() nor torch_neuronx.synchronize() "
        "exists: without it device work would be cut off when the profiler stops"
    )


def _neuron_device(torch: Any, neuronx: Any) -> Device:
    versions = {}
    for name, distribution in NEURON_DISTRIBUTIONS:
        version = distribution_version(distribution)
        if version:
            versions[name] = version
    module_version = getattr(neuronx, "__version__", None)
    if "torch_neuronx" not in versions and isinstance(module_version, str):
        versions["torch_neuronx"] = module_version
    return Device(
        name="neuron",
        activities=[_activity(torch, "CPU"), _activity(torch, "PrivateUse1")],
        activity_names=["CPU", "PrivateUse1"],
        synchronize=_neuron_synchronize(torch, neuronx),
        neuron=neuronx,
        versions=versions,
    )


def _cuda_device(torch: Any) -> Device:
    versions = {}
    if getattr(torch.version, "cuda", None):
        versions["cuda"] = str(torch.version.cuda)
    return Device(
        name="cuda",
        activities=[_activity(torch, "CPU"), _activity(torch, "CUDA")],
        activity_names=["CPU", "CUDA"],
        synchronize=torch.cuda.synchronize,
        versions=versions,
    )


def _no_synchronize() -> None:
    """CPU ops have finished when they return."""


def detect_device(requested: str = "auto") -> Device:
    """The device to profile: `requested` is "auto", "neuron", "cuda" or "cpu".

    "auto" picks Neuron when `torch_neuronx` imports, else CUDA when torch.cuda.is_available(), else
    CPU. Raises CaptureError when a requested device is not available, or when the chosen device
    lacks its profiler activity or synchronize call.
    """
    if requested not in ("auto", "neuron", "cuda", "cpu"):
        raise CaptureError('device must be "auto", "neuron", "cuda" or "cpu", not %r' % (requested,))
    torch = importlib.import_module("torch")
    if requested in ("auto", "neuron"):
        neuronx = sys.modules.get("torch_neuronx") or _try_import("torch_neuronx")
        if neuronx is not None:
            return _neuron_device(torch, neuronx)
        if requested == "neuron":
            raise CaptureError("device neuron requested, but torch_neuronx (TorchNeuron) cannot be imported")
    if requested in ("auto", "cuda"):
        if torch.cuda.is_available():
            return _cuda_device(torch)
        if requested == "cuda":
            raise CaptureError("device cuda requested, but torch.cuda.is_available() is False")
    return Device(name="cpu", activities=[_activity(torch, "CPU")], activity_names=["CPU"], synchronize=_no_synchronize)
