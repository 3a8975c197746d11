"""Neuron Explorer's Parquet output -> the trace neuron-gate reads (docs/NEURON-FORMATS.md section 5.5).

From Neuron 2.34 Explorer no longer maintains its full-profile JSON; Parquet is its default output. The
gate's build machines have no Parquet reader, so this runs where Explorer ran (the Trainium host, where
`pip install pyarrow` works) and writes a Kineto/Chrome trace of fields the gate already reads:

    neuron-gate-capture explorer-to-json PROFILE_DIR OUT.json [--process PID] [--device-event NAME ...]

From the table SystemProfileEvents it writes, for one process:
  framework rows -> ph "X", cat "cpu_op" ("user_annotation" for ProfilerStep#N), pid/tid = process_id/thread_id,
                    args "External id" (1, 2, ... in start order)
  neuron_hw rows named by --device-event (default nc_exec_running) -> ph "X", cat "kernel", pid "NeuronCore <nc_idx>",
                    args "External id" of the framework op it is attributed to (none: not attributed)
Times are start_ts / duration_ns (ns) written as microseconds with 3 decimals after baseTimeNanoseconds.
How a device row finds its op (attribute()): the rows it shares a flow_id with (transitively), then the op
among them, else the innermost op enclosing the earliest linked host row on its thread, else on the one
thread of its process that has an op enclosing it. The rules used are counted in the trace's metadata.
The pure part (convert_rows) takes rows as dicts, so it is tested without pyarrow.
"""

import argparse
import bisect
import glob
import json
import os
import sys
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from ._version import __version__
from .errors import CaptureError

TABLE = "SystemProfileEvents"
DEVICE_EVENTS = ("nc_exec_running",)
COLUMNS = ("id", "name", "start_ts", "end_ts", "duration_ns", "trace_event_source", "process_id", "thread_id",
           "nc_idx", "flow_id", "framework_stream_id", "extra_attributes_json")
RULES = ("flow: a linked framework op", "flow: the op enclosing the launch on its thread",
         "flow: the one op enclosing the launch in its process", "not attributed")
_OP, _STEP, _DISPATCH, _OTHER = "cpu_op", "user_annotation", "dispatch", "other"
_CATEGORIES = {"cpu_op": _OP, "Operator": _OP, "user_annotation": _STEP, "privateuse1_driver": _DISPATCH,
               "privateuse1_runtime": _DISPATCH}


class Row:
    """One SystemProfileEvents row, normalised: times in int ns, ids as ints, flow ids as strings."""

    __slots__ = ("index", "name", "start", "dur", "source", "pid", "tid", "nc", "flows", "kind", "category_seen")

    def __init__(self, index: int, raw: Dict[str, Any]) -> None:
        missing = [c for c in ("name", "start_ts", "trace_event_source", "process_id", "thread_id") if raw.get(c) is None]
        if missing or (raw.get("duration_ns") is None and raw.get("end_ts") is None):
            raise CaptureError("%s row %d lacks %s" % (TABLE, index, ", ".join(missing) or "duration_ns and end_ts"))
        self.index = index
        self.name = str(raw["name"])
        self.start = _int(raw["start_ts"], "start_ts", index)
        dur = raw.get("duration_ns")
        self.dur = _int(dur, "duration_ns", index) if dur is not None else _int(raw["end_ts"], "end_ts", index) - self.start
        self.source = str(raw["trace_event_source"])
        self.pid = _int(raw["process_id"], "process_id", index)
        self.tid = _int(raw["thread_id"], "thread_id", index)
        self.nc = _int(raw["nc_idx"], "nc_idx", index) if raw.get("nc_idx") is not None else None
        flows = raw.get("flow_id")
        self.flows = tuple(str(f) for f in flows) if isinstance(flows, (list, tuple)) else ()
        self.kind, self.category_seen = _framework_kind(raw, self.name) if self.source == "framework" else (_OTHER, False)

    @property
    def end(self) -> int:
        return self.start + self.dur


def _int(value: Any, column: str, index: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise CaptureError("%s row %d: %s is %r, not an integer" % (TABLE, index, column, value))


def _framework_kind(raw: Dict[str, Any], name: str) -> Tuple[str, bool]:
    """(kind, whether a category was read) of a framework row. The schema has no category column: a
    `cat`/`category` key of extra_attributes_json is used when present (assumed); else a row with
    framework_stream_id is a privateuse1_driver dispatch (the schema sets it for those only), a
    ProfilerStep#N row a step, Kineto's span and Python frames nothing, any other row a CPU op (assumed)."""
    extra = raw.get("extra_attributes_json")
    attributes: Any = None
    if isinstance(extra, str) and extra.strip():
        try:
            attributes = json.loads(extra)
        except ValueError:
            attributes = None
    if isinstance(attributes, dict):
        category = attributes.get("cat", attributes.get("category"))
        if isinstance(category, str):
            return _CATEGORIES.get(category, _OTHER), True
    if raw.get("framework_stream_id") not in (None, ""):
        return _DISPATCH, False
    if name.startswith("ProfilerStep#"):
        return _STEP, False
    return (_OTHER if _not_an_op(name) else _OP), False


def _not_an_op(name: str) -> bool:
    """Kineto's own span and markers ("PyTorch Profiler (0)", "Iteration Start: ...") and Python stack frames
    ("model.py(12): forward", "<built-in method ...>"), which a trace.json has in other categories."""
    return (name.startswith(("PyTorch Profiler (", "Iteration Start:", "Record Window End", "<built-in"))
            or ".py(" in name)


class _Ops:
    """The framework ops of each (process, thread), for 'the innermost op enclosing instant t'."""

    def __init__(self, ops: Sequence[Row]) -> None:
        self.threads: Dict[Tuple[int, int], Tuple[List[int], List[Row], List[int]]] = {}
        by_thread: Dict[Tuple[int, int], List[Row]] = {}
        for op in ops:
            by_thread.setdefault((op.pid, op.tid), []).append(op)
        for key, rows in by_thread.items():
            rows.sort(key=lambda r: (r.start, -r.dur))
            parents, stack = [], []  # parent index of each op by nesting (-1: top level)
            for i, row in enumerate(rows):
                while stack and rows[stack[-1]].end < row.end:  # not inside the op on top: its sibling
                    stack.pop()
                parents.append(stack[-1] if stack else -1)
                stack.append(i)
            self.threads[key] = ([r.start for r in rows], rows, parents)

    def enclosing(self, pid: int, tid: int, t: int) -> Optional[Row]:
        entry = self.threads.get((pid, tid))
        if entry is None:
            return None
        starts, rows, parents = entry
        i = bisect.bisect_right(starts, t) - 1
        while i >= 0 and rows[i].end < t:
            i = parents[i]
        return rows[i] if i >= 0 else None

    def enclosing_in_process(self, pid: int, t: int) -> Optional[Row]:
        found = [op for (p, tid) in self.threads if p == pid for op in [self.enclosing(p, tid, t)] if op]
        return found[0] if len(found) == 1 else None


def _flow_groups(rows: Sequence[Row]) -> Dict[int, int]:
    """Row index -> group root: rows sharing a flow_id, transitively, are one group (union-find)."""
    parent: Dict[int, int] = {}

    def root(i: int) -> int:
        while parent.setdefault(i, i) != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: Dict[str, int] = {}
    for row in rows:
        for flow in row.flows:
            other = first.setdefault(flow, row.index)
            parent[root(row.index)] = root(other)
    return {i: root(i) for i in list(parent)}


def attribute(device: Row, linked: Sequence[Row], ops: _Ops) -> Tuple[Optional[Row], int]:
    """(op, rule index into RULES) for one device row; `linked` are the other rows of its flow group."""
    linked_ops = [r for r in linked if r.kind == _OP]
    if linked_ops:
        return max(linked_ops, key=lambda r: (r.start, -r.dur)), 0
    hosts = [r for r in linked if r.kind == _DISPATCH] or [r for r in linked if r.source == "neuron_rt"]
    if not hosts:
        return None, 3
    launch = min(hosts, key=lambda r: (r.start, r.index))
    op = ops.enclosing(launch.pid, launch.tid, launch.start)
    if op is not None:
        return op, 1
    op = ops.enclosing_in_process(launch.pid, launch.start)
    return (op, 2) if op is not None else (None, 3)


def _micro(ns: int) -> str:
    """Nanoseconds as Kineto writes microseconds: <ns/1000>.<ns%1000, 3 digits>, exact (no float)."""
    return "%d.%03d" % divmod(ns, 1000) if ns >= 0 else "-" + _micro(-ns)


def _event(cat: str, row: Row, base: int, pid: Any, tid: Any, args: Dict[str, Any]) -> Dict[str, Any]:
    event = {"ph": "X", "cat": cat, "name": row.name, "pid": pid, "tid": tid,
             "ts": _Number(_micro(row.start - base)), "dur": _Number(_micro(row.dur))}
    if args:
        event["args"] = args
    return event


class _Number(str):
    """A JSON number written as this exact text."""


def dumps(value: Any) -> str:
    """JSON text of `value`, writing _Number values as bare number text."""
    if isinstance(value, _Number):
        return str(value)
    if isinstance(value, dict):
        return "{" + ", ".join("%s: %s" % (json.dumps(k), dumps(v)) for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _one_process(rows: Sequence[Row], process: Optional[int]) -> int:
    pids = sorted({r.pid for r in rows if r.source == "framework"})
    if process is not None:
        if process not in pids:
            raise CaptureError("no framework events of process %d (processes with framework events: %s)" % (
                process, ", ".join(map(str, pids)) or "none"))
        return process
    if not pids:
        raise CaptureError("%s holds no framework events: process the capture with the framework trace beside the "
                           "system trace (docs/NEURON-FORMATS.md 1.2), so that Explorer reads it" % TABLE)
    if len(pids) > 1:
        raise CaptureError("%s holds framework events of processes %s: convert one at a time with --process PID "
                           "(each process is a run or a rank; neuron-gate reads ranks only from rank marks)" % (
                               TABLE, ", ".join(map(str, pids))))
    return pids[0]


def convert_rows(raw_rows: Iterable[Dict[str, Any]], process: Optional[int] = None,
                 device_events: Sequence[str] = DEVICE_EVENTS,
                 metadata: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(trace document, report) from SystemProfileEvents rows given as dicts of column -> value. The report
    counts what was written and how each device event was attributed (RULES). Raises CaptureError for a
    row without the required columns, no or several framework processes, or nothing to write."""
    rows = [Row(i, raw) for i, raw in enumerate(raw_rows)]
    pid = _one_process(rows, process)
    rows = [r for r in rows if r.pid == pid and r.dur >= 0]
    ops = sorted((r for r in rows if r.kind == _OP), key=lambda r: (r.start, -r.dur, r.index))
    steps = [r for r in rows if r.kind == _STEP]
    devices = sorted((r for r in rows if r.source == "neuron_hw" and r.name in device_events),
                     key=lambda r: (r.start, r.index))
    external = {op.index: i + 1 for i, op in enumerate(ops)}
    groups = _flow_groups(rows)
    members: Dict[int, List[Row]] = {}
    for row in rows:
        if row.index in groups:
            members.setdefault(groups[row.index], []).append(row)
    index = _Ops(ops)
    rules = [0] * len(RULES)
    links = []
    for device in devices:
        linked = [r for r in members.get(groups.get(device.index, -1), []) if r is not device]
        op, rule = attribute(device, linked, index)
        rules[rule] += 1
        links.append(op)
    written = ops + steps + devices
    if not ops or not devices:
        raise CaptureError("process %d has %d framework ops and %d device events named %s: nothing to compare" % (
            pid, len(ops), len(devices), " or ".join(device_events)))
    base = min(r.start for r in written)
    events = [(s, _event("user_annotation", s, base, s.pid, s.tid, {})) for s in steps]
    events += [(o, _event("cpu_op", o, base, o.pid, o.tid, {"External id": external[o.index]})) for o in ops]
    for device, op in zip(devices, links):
        args: Dict[str, Any] = {"device": device.nc} if device.nc is not None else {}
        if op is not None:
            args["External id"] = external[op.index]
        nc = "NeuronCore %s" % (device.nc if device.nc is not None else "?")
        events.append((device, _event("kernel", device, base, nc, "neuron_hw", args)))
    events.sort(key=lambda e: (e[0].start, -e[0].dur, e[0].index))
    report = {"process": pid, "ops": len(ops), "steps": len(steps), "device_events": len(devices),
              "rules": dict(zip(RULES, rules)),
              "categories_read": sum(1 for r in rows if r.source == "framework" and r.category_seen)}
    document: Dict[str, Any] = {"schemaVersion": 1, "deviceProperties": []}
    document.update(_metadata(report, device_events, metadata or {}))
    document.update({"displayTimeUnit": "ms", "baseTimeNanoseconds": base,
                     "traceEvents": [e for _, e in events]})
    return document, report


def _metadata(report: Dict[str, Any], device_events: Sequence[str], extra: Dict[str, Any]) -> Dict[str, Any]:
    """Top-level scalar keys saying where the trace came from and what the conversion assumed."""
    counts = "; ".join("%d %s" % (n, rule) for rule, n in report["rules"].items() if n)
    meta = {"neuron_gate_source": "neuron-explorer Parquet %s, converted by neuron_gate_capture %s explorer-to-json" % (
                TABLE, __version__),
            "neuron_gate_device_time": "%s rows (neuron_hw) as kernel events; %d device events: %s" % (
                " and ".join(device_events), report["device_events"], counts),
            "neuron_gate_assumed": "framework rows are trace.json's events as Explorer ingested them; "
                                   "%d of them had a category in extra_attributes_json, the rest were read by name "
                                   "(ProfilerStep#N a step, others CPU ops); flow_id links device rows to their "
                                   "launch; one clock for all rows" % report["categories_read"]}
    meta.update({k: v for k, v in extra.items() if isinstance(v, (str, int, float, bool))})
    return meta


def _parquet():
    try:
        import pyarrow.parquet as pq  # only here: the gate's side never needs it
    except ImportError:
        raise CaptureError("reading Explorer's Parquet output needs pyarrow, which is not installed: run "
                           "`%s -m pip install pyarrow` on the host where Explorer ran, then convert there "
                           "(the JSON this writes needs nothing on the gate's side)" % os.path.basename(sys.executable))
    return pq


def table_files(folder: str, table: str) -> List[str]:
    """The files of one table: TABLE.parquet, or its parts TABLE_0.parquet, TABLE_1.parquet, ... in order."""
    parts = [p for p in glob.glob(os.path.join(glob.escape(folder), table + "_*.parquet"))
             if os.path.basename(p)[len(table) + 1:-len(".parquet")].isdigit()]
    parts.sort(key=lambda p: int(os.path.basename(p)[len(table) + 1:-len(".parquet")]))
    whole = os.path.join(folder, table + ".parquet")
    return ([whole] if os.path.isfile(whole) else []) + parts


def read_rows(folder: str, table: str = TABLE, columns: Sequence[str] = COLUMNS) -> List[Dict[str, Any]]:
    """The rows of one table as dicts (only the columns it has of `columns`). Raises CaptureError when
    pyarrow is missing or the table is not in the folder."""
    files = table_files(folder, table)
    if not files:
        raise CaptureError("%s has no %s.parquet (nor %s_<n>.parquet): give the folder Explorer wrote "
                           "(`neuron-explorer view --output-format parquet`)" % (folder, table, table))
    pq = _parquet()
    rows: List[Dict[str, Any]] = []
    for path in files:
        names = pq.read_schema(path).names
        rows.extend(pq.read_table(path, columns=[c for c in columns if c in names]).to_pylist())
    return rows


def explorer_metadata(folder: str) -> Dict[str, Any]:
    """explorer_version and profile_schema_version from the Metadata table when the folder has one."""
    if not table_files(folder, "Metadata"):
        return {}
    rows = read_rows(folder, "Metadata", ("explorer_version", "profile_schema_version"))
    found = {k: v for row in rows for k, v in row.items() if v is not None}
    return {"neuron_" + k: str(v) for k, v in sorted(found.items())}


def main(argv: Optional[List[str]] = None) -> int:
    """neuron-gate-capture explorer-to-json: 0 written, 2 an input that cannot be converted (message on stderr)."""
    p = argparse.ArgumentParser(
        prog="neuron-gate-capture explorer-to-json",
        description="Convert Neuron Explorer's Parquet output (SystemProfileEvents) into the trace JSON neuron-gate "
                    "reads: framework ops, ProfilerStep#N windows and device executions attributed to ops.")
    p.add_argument("profile", help="the folder of Parquet tables Explorer wrote for one capture")
    p.add_argument("out", help="the trace to write, e.g. profiles/head/run-01/explorer_trace.json (a run folder "
                               "of its own: not beside the capture's trace.json, or its ops count twice)")
    p.add_argument("--process", type=int, help="process_id to convert when several processes have framework events")
    p.add_argument("--device-event", action="append", metavar="NAME",
                   help="neuron_hw event name counted as device time (default nc_exec_running); repeatable")
    args = p.parse_args(argv)
    try:
        document, report = convert_rows(read_rows(args.profile), args.process,
                                        tuple(args.device_event or DEVICE_EVENTS), explorer_metadata(args.profile))
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out + ".tmp", "w", encoding="utf-8") as f:
            f.write(dumps(document) + "\n")
        os.replace(args.out + ".tmp", args.out)
    except CaptureError as error:
        print("neuron-gate-capture explorer-to-json: error: %s" % error, file=sys.stderr)
        return 2
    print("%s: process %d, %d ops, %d steps, %d device events (%s)" % (
        args.out, report["process"], report["ops"], report["steps"], report["device_events"],
        "; ".join("%d %s" % (n, rule) for rule, n in report["rules"].items() if n)))
    return 0
