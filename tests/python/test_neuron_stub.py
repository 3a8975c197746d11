"""The Neuron path of neuron_gate_capture against a stub TorchNeuron (ctest python-capture-neuron-stub).

No Trainium here, and Debian's torch 1.13 has neither ProfilerActivity.PrivateUse1 nor torch.compile.
So: a fake `torch_neuronx` (with `profiling.NeuronConfig`, `ProfileMode`, `NeuronProfiler`), a fake
`torch.neuron.synchronize`, ProfilerActivity.PrivateUse1 patched in, and torch.profiler.profile replaced
by a recorder that follows the real torch.profiler.schedule. The stub's API is the one documented in
docs/NEURON-FORMATS.md section 1.1. Checked: the activities, the NeuronConfig fields and
experimental_config, one export per cycle, synchronize after every step and before every prof.step(),
the manifest (and that `neuron-gate inspect` accepts the written folder). Also the compilation path:
a stub torch.compile function, and a real torch.jit.script one.

Run: NEURON_GATE_BINARY=build/src/neuron-gate python tests/python/test_neuron_stub.py
"""

import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
import warnings
from unittest import mock

import torch

import neuron_gate_capture as ngc
from neuron_gate_capture.manifest import detect_compilation_path

EVENTS = []  # what happened, in order: "step", "sync", "prof.step", "export", "profile.enter", ...


class FakeNeuronConfig:
    """Records its keyword arguments, as TorchNeuron's NeuronConfig takes them."""

    refuse_correlate = False

    def __init__(self, **kwargs):
        if self.refuse_correlate and "correlate_device_time" in kwargs:
            raise TypeError("__init__() got an unexpected keyword argument 'correlate_device_time'")
        self.kwargs = kwargs
        self.profile_output_dir = kwargs.get("profile_output_dir", "./prof")


class FakeProfileMode:
    DEVICE = "ProfileMode.DEVICE"
    RUNTIME = "ProfileMode.RUNTIME"
    CPU_UTIL = "ProfileMode.CPU_UTIL"
    HOST_MEMORY = "ProfileMode.HOST_MEMORY"


class FakeNeuronProfiler:
    """export_trace writes what a NeuronConfig capture holds (NEURON-FORMATS.md 1.2): per cycle a
    <instance>_pid_<pid>/<timestamp>/ folder with trace.json, a NEFF, an NTFF and the runtime .pb files."""

    def __init__(self, config):
        self.config = config
        self.exports = 0

    def export_trace(self, prof):
        EVENTS.append("export")
        folder = os.path.join(self.config.profile_output_dir, "i-0stub_pid_%d" % os.getpid(),
                              "20261201_000000_%03d" % self.exports)
        os.makedirs(folder)
        self.exports += 1
        events = []
        for index, number in enumerate(prof.recorded_steps):
            start = index * 1000
            events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % number, "pid": 1,
                           "tid": 1, "ts": start, "dur": 900})
            events.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": start + 10,
                           "dur": 500, "args": {"Input Dims": [[4, 512], [512, 512]]}})
        with open(os.path.join(folder, "trace.json"), "w") as f:
            json.dump({"schemaVersion": 1, "deviceProperties": [], "traceEvents": events}, f)
        for name, data in (("neff_1_vnc_0.neff", b"NEFF"), ("profile_nc_0_session_0.ntff", b"NTFF"),
                           ("ntrace.pb", b"pb"), ("trace_info.pb", b"pb")):
            with open(os.path.join(folder, name), "wb") as f:
                f.write(data)
        prof.recorded_steps = []


class RecordingProfile:
    """Stands for torch.profiler.profile: keeps its arguments, follows the schedule it is given (the
    real torch.profiler.schedule) and calls on_trace_ready where the real profiler would."""

    instances = []

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.step_num = 0
        self.recorded_steps = []
        RecordingProfile.instances.append(self)

    def __enter__(self):
        EVENTS.append("profile.enter")
        return self

    def __exit__(self, *exc):
        EVENTS.append("profile.exit")
        return False

    def step(self):
        EVENTS.append("prof.step")
        action = self.kwargs["schedule"](self.step_num)
        if action in (torch.profiler.ProfilerAction.RECORD, torch.profiler.ProfilerAction.RECORD_AND_SAVE):
            self.recorded_steps.append(self.step_num)
        self.step_num += 1
        if action == torch.profiler.ProfilerAction.RECORD_AND_SAVE:
            self.kwargs["on_trace_ready"](self)


def stub_modules():
    neuronx = types.ModuleType("torch_neuronx")
    neuronx.__version__ = "2.8.0.2.10+stub"
    neuronx.synchronize = lambda: EVENTS.append("torch_neuronx.synchronize")
    profiling = types.ModuleType("torch_neuronx.profiling")
    profiling.NeuronConfig = FakeNeuronConfig
    profiling.ProfileMode = FakeProfileMode
    profiling.NeuronProfiler = FakeNeuronProfiler
    neuronx.profiling = profiling
    neuron = types.SimpleNamespace(synchronize=lambda: EVENTS.append("sync"))
    return neuronx, profiling, neuron


def step(x):
    EVENTS.append("step")
    return x * 2


class NeuronStubTest(unittest.TestCase):
    def setUp(self):
        EVENTS.clear()
        RecordingProfile.instances.clear()
        FakeNeuronConfig.refuse_correlate = False
        self.scratch = tempfile.mkdtemp(prefix="ngc-stub-")
        neuronx, profiling, neuron = stub_modules()
        self.patches = [
            mock.patch.dict(sys.modules, {"torch_neuronx": neuronx, "torch_neuronx.profiling": profiling}),
            mock.patch.object(torch, "neuron", neuron, create=True),
            mock.patch.object(torch.profiler.ProfilerActivity, "PrivateUse1", "ProfilerActivity.PrivateUse1",
                              create=True),
            mock.patch.object(torch.profiler, "profile", RecordingProfile),
        ]
        for patch in self.patches:
            patch.start()

    def tearDown(self):
        for patch in reversed(self.patches):
            patch.stop()

    def capture(self, out="neuron", **settings):
        schedule = ngc.Schedule(wait=1, warmup=1, active=2, repeat=3)
        timing = ngc.Timing(warmup=2, repetitions=5)
        return ngc.capture(step, os.path.join(self.scratch, out), {"x": torch.ones(4, 512)},
                           settings=ngc.Settings(schedule=schedule, timing=timing, neuron_cores="0-1", **settings),
                           operating_point="bs4")

    def test_profiler_gets_private_use1_neuron_config_and_synchronize(self):
        result = self.capture()
        self.assertEqual(len(RecordingProfile.instances), 1)
        kwargs = RecordingProfile.instances[0].kwargs
        self.assertEqual(kwargs["activities"], [torch.profiler.ProfilerActivity.CPU, "ProfilerActivity.PrivateUse1"])
        config = kwargs["experimental_config"]
        self.assertIsInstance(config, FakeNeuronConfig)
        self.assertEqual(config.kwargs, {
            "modes": [FakeProfileMode.DEVICE, FakeProfileMode.RUNTIME],
            "capture_enabled_for_nc": "0-1",
            "correlate_device_time": True,
            "profile_output_dir": os.path.join(self.scratch, "neuron"),
        })
        self.assertTrue(kwargs["record_shapes"])
        # The profiled loop: 3 cycles of 1 + 1 + 2 steps, each step synchronized before prof.step(); after each
        # cycle's export (the profiler stopped) a timing burst: one untimed call, then 1 sample (5 samples over
        # 4 bursts: 2, 1, 1, 1).
        profiled = EVENTS[EVENTS.index("profile.enter") + 1:EVENTS.index("profile.exit")]
        burst = ["step", "sync"] + ["sync", "step", "sync"]
        self.assertEqual(profiled, (["step", "sync", "prof.step"] * 4 + ["export"] + burst) * 3)
        self.assertEqual(result.traces, 3)
        # The first burst before the profiler: 2 warm-up calls then one sync, then per sample sync, step, sync.
        timed = EVENTS[:EVENTS.index("profile.enter")]
        self.assertEqual(timed, ["step", "step", "sync"] + ["sync", "step", "sync"] * 2)
        self.assertEqual(len(result.latency_ms), 5)
        self.assertEqual(len(result.thread_cpu_ms), 5)
        self.assertEqual(result.manifest["timing"]["bursts"], 4)
        self.assertNotIn("torch_neuronx.synchronize", EVENTS)  # torch.neuron.synchronize is preferred

    def test_manifest_records_the_neuron_capture_and_neuron_gate_reads_it(self):
        result = self.capture()
        out = os.path.join(self.scratch, "neuron")
        with open(os.path.join(out, "neuron-gate.json")) as f:
            manifest = json.load(f)
        self.assertEqual(manifest, result.manifest)
        self.assertEqual(manifest["device"], "neuron")
        self.assertEqual(manifest["operating_point"], "bs4")
        self.assertEqual(manifest["profiler"]["activities"], ["CPU", "PrivateUse1"])
        self.assertEqual(manifest["neuron_config"], {"modes": ["DEVICE", "RUNTIME"], "capture_enabled_for_nc": "0-1",
                                                     "profile_output_dir": out, "correlate_device_time": True})
        self.assertEqual(manifest["versions"]["torch_neuronx"], "2.8.0.2.10+stub")
        self.assertEqual(manifest["inputs"], [{"name": "x", "shape": [4, 512], "dtype": "float32"}])
        self.assertEqual(manifest["schedule"], {"skip_first": 0, "wait": 1, "warmup": 1, "active": 2, "repeat": 3})
        captures = sorted(os.listdir(os.path.join(out, "i-0stub_pid_%d" % os.getpid())))
        self.assertEqual(len(captures), 3)
        binary = os.environ.get("NEURON_GATE_BINARY")
        if binary:
            run = subprocess.run([binary, "inspect", out], capture_output=True, text=True)
            self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
            self.assertIn("manifest.neuron_config.correlate_device_time", run.stdout)
            self.assertIn("manifest.profiler.activities", run.stdout)

    def test_neuron_config_without_correlate_device_time(self):
        FakeNeuronConfig.refuse_correlate = True
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = self.capture()
        self.assertTrue(any("correlate_device_time" in str(w.message) for w in caught))
        self.assertNotIn("correlate_device_time", RecordingProfile.instances[0].kwargs["experimental_config"].kwargs)
        self.assertNotIn("correlate_device_time", result.manifest["neuron_config"])

    def test_torch_neuronx_synchronize_when_torch_neuron_is_missing(self):
        with mock.patch.object(torch, "neuron", None):
            self.capture()
        self.assertIn("torch_neuronx.synchronize", EVENTS)
        self.assertNotIn("sync", EVENTS)


class CompilationPathTest(unittest.TestCase):
    def test_stub_torch_compile_function(self):
        compiled = lambda x: x + 1  # noqa: E731
        compiled._torchdynamo_orig_callable = step  # what torch.compile's wrapper carries
        self.assertEqual(detect_compilation_path(compiled, {}), "torch.compile")

    def test_jit_script_module_among_inputs(self):
        module = torch.jit.script(torch.nn.Linear(4, 4))
        detect = detect_compilation_path
        self.assertEqual(detect(lambda model, x: model(x), {"model": module, "x": torch.ones(1, 4)}), "jit")
        self.assertEqual(detect(step, {"x": torch.ones(1)}), "eager")

    def test_cpu_device_without_neuron(self):
        device = ngc.detect_device("auto")
        self.assertEqual((device.name, device.activity_names), ("cpu", ["CPU"]))
        with self.assertRaises(ngc.CaptureError):
            ngc.detect_device("neuron")


if __name__ == "__main__":
    unittest.main()
