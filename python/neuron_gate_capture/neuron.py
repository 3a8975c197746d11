"""TorchNeuron's NeuronConfig and trace export (docs/NEURON-FORMATS.md sections 1.1 and 1.2).

The config turns on device and runtime profiling for the chosen NeuronCores and travels to the
profiler through `torch.profiler.profile(experimental_config=...)`; `NeuronProfiler(config).export_trace`
is the `on_trace_ready` callback that writes `trace.json` beside the Neuron system traces
(`<profile_output_dir>/<instance-id>_pid_<pid>/<timestamp>/`).
"""

import importlib
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence

from .errors import CaptureError


@dataclass
class NeuronSetup:
    """A built NeuronConfig and what the manifest says of it.

    config: the torch_neuronx.profiling.NeuronConfig instance (for experimental_config).
    export_trace: NeuronProfiler(config).export_trace, or None when this TorchNeuron has no NeuronProfiler.
    manifest: the settings as the manifest's "neuron_config" records them (modes as names, cores as text).
    """

    config: Any
    export_trace: Optional[Callable[[Any], None]]
    manifest: Dict[str, Any] = field(default_factory=dict)


def build_neuron_config(
    output_dir: str,
    modes: Sequence[str] = ("DEVICE", "RUNTIME"),
    cores: str = "0",
    max_events_per_nc: Optional[int] = None,
    neff_cache_dir: Optional[str] = None,
    correlate_device_time: bool = True,
) -> NeuronSetup:
    """Builds NeuronConfig(modes=[ProfileMode.<m>...], capture_enabled_for_nc=cores,
    profile_output_dir=output_dir, correlate_device_time=True, ...) from torch_neuronx.profiling.

    `modes` are ProfileMode names ("DEVICE", "RUNTIME", "CPU_UTIL", "HOST_MEMORY"); `cores` the
    NeuronCores as NeuronConfig takes them ("0,1,2-5"). correlate_device_time is documented in one
    third-party script only: a NeuronConfig that refuses it (TypeError) is built without it, with a
    warning, and the manifest then does not claim it. Raises CaptureError when torch_neuronx.profiling
    has no NeuronConfig or ProfileMode, or a mode name is unknown.
    """
    try:
        profiling = importlib.import_module("torch_neuronx.profiling")
    except Exception as error:  # noqa: BLE001
        raise CaptureError("torch_neuronx.profiling cannot be imported (%s): no NeuronConfig" % (error,))
    for name in ("NeuronConfig", "ProfileMode"):
        if not hasattr(profiling, name):
            raise CaptureError("torch_neuronx.profiling has no %s: this TorchNeuron is too old to profile devices" % name)
    mode_values: List[Any] = []
    for mode in modes:
        if not hasattr(profiling.ProfileMode, mode):
            raise CaptureError("unknown Neuron profile mode %r (ProfileMode has no such member)" % (mode,))
        mode_values.append(getattr(profiling.ProfileMode, mode))
    kwargs: Dict[str, Any] = {"modes": mode_values, "profile_output_dir": output_dir, "capture_enabled_for_nc": cores}
    if max_events_per_nc is not None:
        kwargs["max_events_per_nc"] = max_events_per_nc
    if neff_cache_dir is not None:
        kwargs["neff_cache_dir"] = neff_cache_dir
    manifest = {"modes": list(modes), "capture_enabled_for_nc": cores, "profile_output_dir": output_dir}
    for key in ("max_events_per_nc", "neff_cache_dir"):
        if key in kwargs:
            manifest[key] = kwargs[key]
    config = None
    if correlate_device_time:
        try:
            config = profiling.NeuronConfig(correlate_device_time=True, **kwargs)
            manifest["correlate_device_time"] = True
        except TypeError as error:
            warnings.warn("NeuronConfig does not take correlate_device_time (%s): built without it" % (error,))
    if config is None:
        config = profiling.NeuronConfig(**kwargs)
    export_trace = None
    if hasattr(profiling, "NeuronProfiler"):
        export_trace = profiling.NeuronProfiler(config).export_trace
    return NeuronSetup(config=config, export_trace=export_trace, manifest=manifest)
