"""The run manifest neuron-gate.json (schema "neuron-gate.manifest/1", README "Run manifest"): the
facts of a capture that its traces cannot tell, so that neuron-gate checks them as conditions."""

import importlib
import platform
from typing import Any, Dict, List, Optional

from ._version import __version__
from .errors import CaptureError

SCHEMA = "neuron-gate.manifest/1"
COMPILATION_PATHS = ("eager", "jit", "torch.compile")
GRAD_MODES = ("enabled", "no_grad", "inference_mode")


def grad_mode_name(torch: Any) -> str:
    """The autograd mode of the calling thread: "inference_mode" inside torch.inference_mode(), else
    "no_grad" when gradients are off (torch.no_grad()), else "enabled"."""
    is_inference = getattr(torch, "is_inference_mode_enabled", None)
    if is_inference is not None and is_inference():
        return "inference_mode"
    return "enabled" if torch.is_grad_enabled() else "no_grad"


def _dtype_name(dtype: Any) -> str:
    text = str(dtype)
    return text[len("torch."):] if text.startswith("torch.") else text


def describe_inputs(inputs: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The manifest's "inputs": a tensor as {"name", "shape", "dtype"}; a bool, int, float or str as
    {"name", "value"}; a list or tuple of those as one entry per element named "<name>[<i>]". Anything
    else (a module, a function, a tokenizer) is not an input the gate compares and is left out: the
    tensors and numbers it is called with are. Sorted by name."""
    torch = importlib.import_module("torch")
    entries: List[Dict[str, Any]] = []

    def add(name: str, value: Any) -> None:
        if isinstance(value, torch.Tensor):
            entries.append({"name": name, "shape": [int(d) for d in value.shape], "dtype": _dtype_name(value.dtype)})
        elif isinstance(value, (bool, int, float, str)) or value is None:
            if isinstance(value, float) and value != value:
                raise CaptureError("input %s is NaN: not a value the manifest can record" % name)
            entries.append({"name": name, "value": value})
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                add("%s[%d]" % (name, index), item)

    for name, value in inputs.items():
        add(str(name), value)
    return sorted(entries, key=lambda entry: entry["name"])


def _compilation_of(value: Any, torch: Any) -> Optional[str]:
    if hasattr(value, "_torchdynamo_orig_callable") or type(value).__name__ == "OptimizedModule":
        return "torch.compile"
    jit = getattr(torch, "jit", None)
    script_types = tuple(t for t in (getattr(jit, "ScriptModule", None), getattr(jit, "ScriptFunction", None)) if t)
    if script_types and isinstance(value, script_types):
        return "jit"
    return None


def detect_compilation_path(step: Any, inputs: Dict[str, Any]) -> str:
    """"torch.compile" when the step or a value of `inputs` was made by torch.compile (an
    OptimizedModule, or a function carrying _torchdynamo_orig_callable), else "jit" when one is a
    torch.jit ScriptModule or ScriptFunction, else "eager". Compilation that happens inside the step
    cannot be seen: declare it (compilation_path=...) then."""
    torch = importlib.import_module("torch")
    found = [_compilation_of(value, torch) for value in [step] + list(inputs.values())]
    for path in ("torch.compile", "jit"):
        if path in found:
            return path
    return "eager"


def collect_versions(device_versions: Dict[str, str], extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
    """"versions": torch, python, neuron_gate_capture, the device's software (torch_neuronx,
    neuronx_cc, cuda, ...) and `extra` (e.g. {"neuron_sdk": "2.26.0"}), every value a string."""
    torch = importlib.import_module("torch")
    versions = {"torch": str(torch.__version__), "python": platform.python_version(),
                "neuron_gate_capture": __version__}
    versions.update(device_versions)
    for name, value in (extra or {}).items():
        versions[str(name)] = str(value)
    return versions


def operating_point_label(inputs: List[Dict[str, Any]]) -> str:
    """A label made from the inputs when none is given: "x=4x512:float32,n=3"."""
    parts = []
    for entry in inputs:
        if "shape" in entry:
            parts.append("%s=%s:%s" % (entry["name"], "x".join(str(d) for d in entry["shape"]) or "scalar", entry["dtype"]))
        else:
            parts.append("%s=%s" % (entry["name"], entry["value"]))
    return ",".join(parts) or "default"


def build_manifest(
    *,
    workload: str,
    operating_point: str,
    compilation_path: str,
    device: str,
    versions: Dict[str, str],
    profiler: Dict[str, Any],
    schedule: Dict[str, int],
    timing: Dict[str, Any],
    inputs: List[Dict[str, Any]],
    neuron_config: Optional[Dict[str, Any]] = None,
    model_version: Optional[str] = None,
    instance_type: Optional[str] = None,
    notes: Optional[str] = None,
    pairing_session: Optional[str] = None,
    intra_op_threads: Optional[int] = None,
    grad_mode: Optional[str] = None,
) -> Dict[str, Any]:
    """The manifest document, keys in the order of the README's table; optional keys only when set."""
    if compilation_path not in COMPILATION_PATHS and not compilation_path.strip():
        raise CaptureError("compilation path must not be empty")
    document: Dict[str, Any] = {"schema": SCHEMA, "workload": workload, "operating_point": operating_point}
    if model_version:
        document["model_version"] = model_version
    document["compilation_path"] = compilation_path
    document["device"] = device
    document["versions"] = versions
    if instance_type:
        document["instance_type"] = instance_type
    if intra_op_threads is not None:
        document["intra_op_threads"] = intra_op_threads
    if grad_mode is not None:
        document["grad_mode"] = grad_mode
    document["profiler"] = profiler
    if neuron_config is not None:
        document["neuron_config"] = neuron_config
    document["schedule"] = schedule
    document["timing"] = timing
    document["inputs"] = inputs
    if notes:
        document["notes"] = notes
    if pairing_session:
        document["pairing"] = {"session": pairing_session}
    return document
