"""neuron_gate_capture.explorer: Explorer's SystemProfileEvents rows -> the trace JSON neuron-gate reads
(docs/NEURON-FORMATS.md 5.5; ctest python-explorer-convert).

pyarrow is not installed on the build machines, so the pure part (convert_rows) is tested on rows given as
dicts, the column names and units of the Parquet schema (Explorer schema 7.4.0); reading Parquet is checked
only for its refusal without pyarrow. With NEURON_GATE_BINARY set, the written trace is also read by the gate
(`compare --json` of it against itself, and `inspect`): its per-op device time must equal what the rows say.

Run: PYTHONPATH=python NEURON_GATE_BINARY=build/src/neuron-gate python3 tests/python/test_explorer.py
"""

import io
import json
import os
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from unittest import mock

from neuron_gate_capture import cli
from neuron_gate_capture.errors import CaptureError
from neuron_gate_capture.explorer import RULES, convert_rows, dumps, table_files

BASE = 1766072156592459482  # a Unix-ns start_ts, as SystemProfileMetadata.first_ts_ns shows them
US = 1000


def row(source, name, start_us, dur_us, pid=4242, tid=4242, **extra):
    r = {"id": str(len(name) + start_us), "name": name, "start_ts": BASE + int(start_us * US),
         "duration_ns": int(dur_us * US), "trace_event_source": source, "instance_id": "i-0abc123",
         "process_id": pid, "thread_id": tid}
    r.update(extra)
    return r


def step_rows(k):
    """One profiler step of 1000 us: aten::mm launched through a driver dispatch (flow to nrt_execute on a
    runtime thread, flow to the hardware execution), aten::add whose runtime call sits on its own thread,
    and a device execution nothing links to."""
    s = 1000 * k
    f = lambda n: str(100 * k + n)  # flow ids
    return [
        row("framework", "ProfilerStep#%d" % k, s, 1000),
        row("framework", "aten::mm", s + 100, 200),
        row("framework", "neuron_dispatch", s + 150, 5, framework_stream_id="7", flow_id=[f(1)]),
        row("neuron_rt", "nrt_execute", s + 160, 30, tid=4300, flow_id=[f(1), f(2)]),
        row("neuron_hw", "nc_exec_running", s + 200, 200 + k, tid=0, nc_idx=0, flow_id=[f(2)]),
        row("framework", "aten::add", s + 400, 100),
        row("neuron_rt", "nrt_execute", s + 450, 20, flow_id=[f(3)]),
        row("neuron_hw", "nc_exec_running", s + 600, 80, tid=0, nc_idx=0, flow_id=[f(3)]),
        row("neuron_hw", "nc_exec_running", s + 900, 10, tid=0, nc_idx=0),
        row("neuron_hw", "cc_running", s + 700, 50, tid=0, nc_idx=0),
    ]


def rows(steps=4):
    return [r for k in range(steps) for r in step_rows(k)]


def events(document, cat):
    return [e for e in document["traceEvents"] if e["cat"] == cat]


class ConvertRows(unittest.TestCase):
    def test_layout_and_attribution(self):
        document, report = convert_rows(rows())
        self.assertEqual(document["baseTimeNanoseconds"], BASE)
        self.assertEqual(report["ops"], 8)
        self.assertEqual(report["steps"], 4)
        self.assertEqual(report["device_events"], 12)  # cc_running is not a --device-event by default
        self.assertEqual(report["rules"], {RULES[0]: 0, RULES[1]: 8, RULES[2]: 0, RULES[3]: 4})
        ops = {e["args"]["External id"]: e["name"] for e in events(document, "cpu_op")}
        self.assertEqual(sorted(ops), list(range(1, 9)))
        device = {}
        for e in events(document, "kernel"):
            self.assertEqual((e["pid"], e["tid"], e["args"]["device"]), ("NeuronCore 0", "neuron_hw", 0))
            name = ops.get(e["args"].get("External id"), "not attributed")
            device.setdefault(name, []).append(float(e["dur"]))
        self.assertEqual(device, {"aten::mm": [200.0, 201.0, 202.0, 203.0], "aten::add": [80.0] * 4,
                                  "not attributed": [10.0] * 4})
        steps = events(document, "user_annotation")
        self.assertEqual([(e["name"], e["pid"], e["tid"]) for e in steps][:2],
                         [("ProfilerStep#0", 4242, 4242), ("ProfilerStep#1", 4242, 4242)])
        self.assertNotIn("neuron_dispatch", {e["name"] for e in document["traceEvents"]})  # a dispatch, not an op
        self.assertIn("8 flow: the op enclosing the launch on its thread", document["neuron_gate_device_time"])

    def test_times_are_exact_decimal_microseconds(self):
        r = rows(1)
        r[1]["start_ts"] += 7  # aten::mm starts 100.007 us after the base
        r[1]["duration_ns"] = 199999
        text = dumps(convert_rows(r)[0])
        self.assertIn('"name": "aten::mm", "pid": 4242, "tid": 4242, "ts": 100.007, "dur": 199.999', text)
        self.assertIn('"baseTimeNanoseconds": %d' % BASE, text)
        json.loads(text)

    def test_category_from_extra_attributes_and_linked_op(self):
        r = rows(1)
        r[5]["extra_attributes_json"] = json.dumps({"cat": "python_function"})  # aten::add row: not an op now
        r.append(row("framework", "aten::sum", 1500, 10, flow_id=["77"]))
        r.append(row("neuron_hw", "nc_exec_running", 1600, 40, tid=0, nc_idx=1, flow_id=["77"]))
        document, report = convert_rows(r)
        self.assertEqual(report["categories_read"], 1)
        self.assertEqual(sorted(e["name"] for e in events(document, "cpu_op")), ["aten::mm", "aten::sum"])
        self.assertEqual(report["rules"][RULES[0]], 1)
        sum_id = [e for e in events(document, "cpu_op") if e["name"] == "aten::sum"][0]["args"]["External id"]
        self.assertIn(sum_id, [e["args"].get("External id") for e in events(document, "kernel")])

    def test_spans_and_python_frames_are_not_ops(self):
        r = rows(1) + [row("framework", "PyTorch Profiler (0)", 0, 1000), row("framework", "model.py(12): forward", 90, 300),
                       row("framework", "<built-in method mm>", 105, 190)]
        names = sorted(e["name"] for e in events(convert_rows(r)[0], "cpu_op"))
        self.assertEqual(names, ["aten::add", "aten::mm"])

    def test_launch_on_another_thread_of_the_process(self):
        r = rows(1)
        r[2]["thread_id"] = 9  # the dispatch on a thread without ops: the one op holding it in the process
        document, report = convert_rows(r)
        self.assertEqual(report["rules"][RULES[2]], 1)

    def test_several_processes_need_process(self):
        r = rows(1) + [dict(x, process_id=5000) for x in rows(1)]
        with self.assertRaisesRegex(CaptureError, "processes 4242, 5000: convert one at a time with --process"):
            convert_rows(r)
        self.assertEqual(convert_rows(r, process=5000)[1]["process"], 5000)
        with self.assertRaisesRegex(CaptureError, "no framework events of process 1"):
            convert_rows(r, process=1)

    def test_refusals(self):
        with self.assertRaisesRegex(CaptureError, "holds no framework events"):
            convert_rows([x for x in rows(1) if x["trace_event_source"] != "framework"])
        with self.assertRaisesRegex(CaptureError, "0 device events named nc_exec_running"):
            convert_rows([x for x in rows(1) if x["trace_event_source"] != "neuron_hw"])
        bad = rows(1)
        del bad[3]["start_ts"]
        with self.assertRaisesRegex(CaptureError, "row 3 lacks start_ts"):
            convert_rows(bad)
        bad = rows(1)
        bad[3]["duration_ns"] = "soon"
        with self.assertRaisesRegex(CaptureError, "row 3: duration_ns is 'soon', not an integer"):
            convert_rows(bad)


class CommandLine(unittest.TestCase):
    def test_without_pyarrow_the_message_says_where_to_install_it(self):
        with tempfile.TemporaryDirectory() as folder:
            for name in ("SystemProfileEvents_10.parquet", "SystemProfileEvents_2.parquet", "SystemProfileEvents_x.parquet"):
                open(os.path.join(folder, name), "wb").close()
            self.assertEqual([os.path.basename(p) for p in table_files(folder, "SystemProfileEvents")],
                             ["SystemProfileEvents_2.parquet", "SystemProfileEvents_10.parquet"])
            err = io.StringIO()
            with mock.patch.dict(sys.modules, {"pyarrow": None, "pyarrow.parquet": None}), redirect_stderr(err):
                code = cli.main(["explorer-to-json", folder, os.path.join(folder, "out.json")])
            self.assertEqual(code, 2)
            self.assertIn("needs pyarrow, which is not installed", err.getvalue())
            self.assertIn("-m pip install pyarrow", err.getvalue())

    def test_explorer_versions_from_the_metadata_table(self):
        def read(folder, table="SystemProfileEvents", columns=()):
            if table == "Metadata":
                return [{"explorer_version": "2.34.0", "profile_schema_version": None},
                        {"profile_schema_version": "13.1.0"}]
            return rows(1)
        with tempfile.TemporaryDirectory() as folder:
            open(os.path.join(folder, "Metadata.parquet"), "wb").close()
            out = os.path.join(folder, "t.json")
            with mock.patch("neuron_gate_capture.explorer.read_rows", side_effect=read), redirect_stdout(io.StringIO()):
                self.assertEqual(cli.main(["explorer-to-json", folder, out]), 0)
            with open(out, encoding="utf-8") as f:
                document = json.load(f)
        self.assertEqual((document["neuron_explorer_version"], document["neuron_profile_schema_version"]),
                         ("2.34.0", "13.1.0"))
        self.assertEqual(list(document)[:3], ["schemaVersion", "deviceProperties", "neuron_gate_source"])
        self.assertEqual(list(document)[-3:], ["displayTimeUnit", "baseTimeNanoseconds", "traceEvents"])

    def test_missing_table(self):
        with tempfile.TemporaryDirectory() as folder, redirect_stderr(io.StringIO()) as err:
            self.assertEqual(cli.main(["explorer-to-json", folder, os.path.join(folder, "out.json")]), 2)
        self.assertIn("has no SystemProfileEvents.parquet", err.getvalue())

    def test_written_file_and_the_gate_reading_it(self):
        with tempfile.TemporaryDirectory() as folder:
            side = os.path.join(folder, "head")
            out = os.path.join(side, "run-01", "explorer_trace.json")
            with mock.patch("neuron_gate_capture.explorer.read_rows", return_value=rows(4)), \
                    mock.patch("neuron_gate_capture.explorer.explorer_metadata", return_value={}), \
                    redirect_stdout(io.StringIO()) as said:
                self.assertEqual(cli.main(["explorer-to-json", "prof", out]), 0)
            self.assertIn("process 4242, 8 ops, 4 steps, 12 device events", said.getvalue())
            binary = os.environ.get("NEURON_GATE_BINARY")
            if not binary:
                self.skipTest("NEURON_GATE_BINARY not set")
            report = os.path.join(folder, "report.json")
            done = subprocess.run([binary, "compare", side, side, "--no-git", "--json", report, "--format",
                                   "terminal"], capture_output=True, text=True)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            with open(report, encoding="utf-8") as f:
                metrics = {m["name"]: m for m in json.load(f)["metrics"] if m["class"] == "device"}
            self.assertAlmostEqual(metrics["aten::mm"]["base"]["median"], 201.5)  # per step 200, 201, 202, 203 us
            self.assertAlmostEqual(metrics["aten::add"]["base"]["median"], 80.0)
            inspected = subprocess.run([binary, "inspect", side], capture_output=True, text=True)
            self.assertEqual(inspected.returncode, 0, inspected.stderr)
            self.assertIn("converted by neuron_gate_capture", inspected.stdout)
            self.assertIn("8 flow: the op enclosing the launch on its thread; 4 not attributed", inspected.stdout)


if __name__ == "__main__":
    unittest.main()
