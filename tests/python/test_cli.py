"""The command line and the API's refusals of neuron_gate_capture on CPU (ctest python-capture-cli): a
capture the gate would misread is refused with exit 2 and a message naming what to change, before
anything is written; --runs makes one folder per process under one manifest (with --interleave, base and
head processes alternate under one pairing session); e2e.json is neuron-gate's
schema with throughput = work / latency.

Run: python tests/python/test_cli.py  (with the package and torch importable)
"""

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest

import neuron_gate_capture as ngc

MODEL = textwrap.dedent('''
    import torch

    def setup(rows=4, mode="fast"):
        torch.set_num_threads(1)
        return {"x": torch.ones(rows, 8), "mode": mode}

    def step(x, mode):
        return x * 2
''')

FAST = ["--wait", "0", "--warmup", "0", "--active", "1", "--repeat", "1", "--timing-warmup", "1", "--repetitions", "3"]


class CliTest(unittest.TestCase):
    def setUp(self):
        self.scratch = tempfile.mkdtemp(prefix="ngc-cli-")
        self.model = os.path.join(self.scratch, "model.py")
        with open(self.model, "w") as f:
            f.write(MODEL)

    def run_cli(self, *args):
        return subprocess.run([sys.executable, "-m", "neuron_gate_capture", *args], capture_output=True, text=True,
                              cwd=self.scratch)

    def test_capture_writes_manifest_e2e_and_traces(self):
        run = self.run_cli("model.py", "--out", "side", "--arg", "rows=2", "--arg", "mode=\"slow\"",
                           "--work-per-step", "2", "--work-unit", "rows", "--run", "r1", *FAST)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(self.scratch, "side", "neuron-gate.json")) as f:
            manifest = json.load(f)
        self.assertEqual(manifest["inputs"], [{"name": "mode", "value": "slow"},
                                              {"name": "x", "shape": [2, 8], "dtype": "float32"}])
        self.assertEqual(manifest["operating_point"], "mode=slow,x=2x8:float32")
        self.assertEqual(manifest["workload"], "model:step")
        self.assertEqual(manifest["device"], "cpu")
        self.assertEqual(manifest["timing"], {"warmup": 1, "repetitions": 3, "calls_per_sample": 1,
                                              "interleaved": False, "bursts": 2, "gate": "latency"})
        self.assertEqual(manifest["intra_op_threads"], 1)  # setup() set 1 thread
        self.assertEqual(manifest["grad_mode"], "enabled")
        with open(os.path.join(self.scratch, "side", "r1", "e2e.json")) as f:
            e2e = json.load(f)
        self.assertEqual(e2e["schema"], "neuron-gate.e2e/1")
        latency, throughput, cpu = e2e["metrics"]
        self.assertEqual((latency["name"], latency["unit"], latency["better"]), ("latency", "ms", "lower"))
        self.assertEqual((throughput["name"], throughput["unit"], throughput["better"]), ("throughput", "rows/s", "higher"))
        self.assertEqual(len(latency["samples"]), 3)
        self.assertEqual((cpu["name"], cpu["unit"], cpu["better"], cpu["gates"]), ("thread_cpu_time", "ms", "lower", False))
        self.assertEqual(len(cpu["samples"]), 3)
        self.assertNotIn("gates", latency)
        self.assertNotIn("gates", throughput)
        for ms, per_s in zip(latency["samples"], throughput["samples"]):
            self.assertAlmostEqual(per_s, 2 / (ms / 1e3), delta=per_s * 1e-5)
        self.assertTrue(os.path.exists(os.path.join(self.scratch, "side", "r1", "trace_cycle0.json")))

    def test_a_folder_holding_a_capture_is_refused(self):
        self.assertEqual(self.run_cli("model.py", "--out", "side", *FAST).returncode, 0)
        run = self.run_cli("model.py", "--out", "side", *FAST)
        self.assertEqual(run.returncode, 2)
        self.assertIn("is not empty", run.stderr)
        # A run appended with other settings would mix two captures in one side.
        run = self.run_cli("model.py", "--out", "side", "--append", "--arg", "rows=8", *FAST)
        self.assertEqual(run.returncode, 2)
        self.assertIn("made differently (inputs, operating_point differ)", run.stderr)
        self.assertEqual(self.run_cli("model.py", "--out", "side", "--append", *FAST).returncode, 0)

    def test_runs_make_one_folder_per_process(self):
        run = self.run_cli("model.py", "--out", "side", "--runs", "2", *FAST)
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(self.scratch, "side"))), ["neuron-gate.json", "run-01", "run-02"])

    def test_runs_with_interleave_alternate_separate_processes_of_one_pairing_session(self):
        # Each variant logs its name and process at import: base and head never share a process, and the
        # order alternates (base first in odd runs), so drift between runs cancels within each pair.
        for name in ("base", "head"):
            with open(os.path.join(self.scratch, name + ".py"), "w") as f:
                f.write("import os\nwith open('imports.log', 'a') as log:\n    log.write('%s %%d\\n' %% os.getpid())\n"
                        % name + MODEL)
        run = self.run_cli("base.py", "--out", "b", "--interleave", "head.py", "--interleave-out", "h", "--runs", "2",
                           *FAST)
        self.assertEqual(run.returncode, 0, run.stderr)
        with open(os.path.join(self.scratch, "imports.log")) as f:
            imports = [line.split() for line in f.read().splitlines()]
        self.assertEqual([name for name, _ in imports], ["base", "head", "head", "base"])
        self.assertEqual(len({pid for _, pid in imports}), 4)
        manifests = []
        for side in ("b", "h"):
            self.assertEqual(sorted(os.listdir(os.path.join(self.scratch, side))), ["neuron-gate.json", "run-01", "run-02"])
            with open(os.path.join(self.scratch, side, "neuron-gate.json")) as f:
                manifests.append(json.load(f))
        self.assertEqual(len(manifests[0]["pairing"]["session"]), 32)
        self.assertEqual(manifests[0]["pairing"]["order"], ["base/run-01", "head/run-01", "head/run-02", "base/run-02"])
        self.assertEqual(manifests[0]["pairing"], manifests[1]["pairing"])
        self.assertFalse(manifests[0]["timing"]["interleaved"])

    def test_usage_errors_exit_2_with_a_message(self):
        cases = [
            (["missing.py", "--out", "o"], "no such file: missing.py"),
            (["model.py:nostep", "--out", "o"], "has no function nostep"),
            (["model.py", "--out", "o", "--interleave", "model.py"], "--interleave and --interleave-out go together"),
            (["model.py", "--out", "o", "--arg", "rows"], "--arg must be KEY=VALUE"),
            (["model.py", "--out", "o", "--active", "0"], "schedule active and repeat must be at least 1"),
            (["model.py", "--out", "o", "--repetitions", "1"], "timing repetitions must be an integer of at least 2"),
            (["model.py", "--out", "o", "--device", "neuron"], "torch_neuronx (TorchNeuron) cannot be imported"),
            (["model.py", "--out", "o", "--interleave", "model.py", "--interleave-out", "o"],
             "each variant needs its own output folder"),
        ]
        for args, message in cases:
            with self.subTest(args=args):
                run = self.run_cli(*args)
                self.assertEqual(run.returncode, 2, run.stderr)
                self.assertIn(message, run.stderr)
                self.assertFalse(os.path.exists(os.path.join(self.scratch, "o", "neuron-gate.json")))

    def test_api_refuses_bad_work_settings_before_running_anything(self):
        calls = []
        for settings, message in ((ngc.Settings(work_per_step=0), "work per step must be positive"),
                                  (ngc.Settings(work_per_step=4, work_unit="tokens/s"), "work unit must be a plain name")):
            with self.assertRaises(ngc.CaptureError) as caught:
                ngc.capture(lambda: calls.append(1), os.path.join(self.scratch, "api"), settings=settings)
            self.assertIn(message, str(caught.exception))
        self.assertEqual(calls, [])
        self.assertFalse(os.path.exists(os.path.join(self.scratch, "api")))


if __name__ == "__main__":
    unittest.main()
