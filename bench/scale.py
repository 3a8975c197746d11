#!/usr/bin/env python3
"""The scale benchmark (issue 21): neuron-gate on large traces built from the repository's real ones.

  python3 bench/scale.py --build BUILD [--sizes 100,300,1000] [--only NAME,...] [--repeat N] [--instructions]
  cmake --build BUILD --target bench          (the same with the defaults, after building what it runs)

Builds the traces with bench/make_traces.py into BUILD/tmp/bench (never into the repository; 1 GB traces
are kept there between runs) and runs, per file, each under /usr/bin/time -v (wall, user+system CPU,
peak RSS of the process):
  cat            cat FILE > /dev/null: the floor of reading the bytes
  json.load      python3 -c 'json.load(open(FILE))' (the python3 on PATH)
  rapidjson      BUILD/bench/neuron_gate_parse_only rapidjson: a SAX pass doing nothing, streaming
  simdjson       ... simdjson: the DOM parser over the whole file in memory (when built with simdjson)
  nlohmann       ... nlohmann: the old reader's parser, a SAX pass doing nothing
  inspect        neuron-gate inspect FILE
  inspect-1      neuron-gate inspect FILE --threads 1 (one core: the reader, SHA-256 and screens in a row)
  compare        neuron-gate compare FILE FILE --quiet --no-git (the file against itself)
  digest         neuron-gate digest FILE -o OUT, when the binary has that command
and prints one Markdown table per file: seconds, CPU seconds, peak RSS, MB/s, wall as a ratio to
json.load's, and peak RSS as a ratio to the file size; then the targets of issue 42, each a ratio to a pass
measured in the same run (so they carry over between machines), with "ok" or "MISSED":
  inspect-1 CPU s / rapidjson parse-only CPU s   <= 1.5 on Kineto traces, <= 3 on legacy traces
  compare wall / inspect wall                    <= 1.2 (compare reads its two sides at once, one a core)
  compare CPU s / (2 x inspect-1 CPU s)          <= 1.2: the same where the second core is taken by other
                                                 jobs (compare's work beyond reading its two sides)
  inspect peak RSS / file size                   <= 0.15 at 1 GB Kineto, <= 0.5 at 1 GB legacy, <= 1 for ops50k
With --instructions the same speed targets are also counted in instructions under callgrind (the same on any
machine and under any load), without OpenSSL's SHA-256 (valgrind's CPU lacks SHA-NI; with it the hash is
~0.3x the parse-only pass, so the limits are 1.2 on Kineto and 2.7 on legacy traces; compare's stays 1.2).
Times are CPU seconds (user + system) where one core is measured, so a machine shared with other jobs
changes them less than wall times. Each leg is timed once (--repeat N: the table shows the median of N,
the targets use the minimum, since other jobs only ever add time); the numbers are only comparable within
one run.
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, stdout=subprocess.DEVNULL):
    """Runs cmd under /usr/bin/time -v: (wall s, cpu s, peak RSS bytes, exit code)."""
    proc = subprocess.run(["/usr/bin/time", "-v"] + cmd, stdout=stdout, stderr=subprocess.PIPE, text=True)
    fields = {}
    for line in proc.stderr.splitlines():
        key, _, value = line.strip().rpartition(": ")
        fields[key] = value
    wall_text = fields.get("Elapsed (wall clock) time (h:mm:ss or m:ss)", "0:0")
    wall = 0.0
    for part in wall_text.split(":"):
        wall = wall * 60 + float(part)
    cpu = float(fields.get("User time (seconds)", 0)) + float(fields.get("System time (seconds)", 0))
    rss = int(fields.get("Maximum resident set size (kbytes)", 0)) * 1024
    if proc.returncode not in (0, 1, 3, 4):
        tail = "\n".join(proc.stderr.splitlines()[:5])
        print("  warning: %s exited %d: %s" % (" ".join(cmd[:3]), proc.returncode, tail), file=sys.stderr)
    return wall, cpu, rss, proc.returncode


def instructions(cmd, tmp):
    """Runs cmd under callgrind: (instructions, of them in libcrypto: the SHA-256), or None without valgrind.
    Valgrind's CPU has no SHA-NI, so OpenSSL's SHA-256 runs its generic code there: counted apart."""
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        return None
    out = os.path.join(tmp, "callgrind.out")
    subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out] + cmd,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = subprocess.run(["callgrind_annotate", out], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True).stdout
    total = crypto = 0
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+) ", line)
        if not m:
            continue
        count = int(m.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in line:
            total = count
        elif "libcrypto" in line:
            crypto += count
    os.remove(out)
    return total, crypto


def print_instructions(name, build, path, tmp):
    """The issue-42 speed targets counted in instructions (callgrind; deterministic on any machine)."""
    gate = os.path.join(build, "src", "neuron-gate")
    parse_only = os.path.join(build, "bench", "neuron_gate_parse_only")
    counts = {}
    for leg, cmd in (("rapidjson", [parse_only, "rapidjson"] + files_of(path)),
                     ("inspect-1", [gate, "inspect", path, "--threads", "1"]),
                     ("compare-1", [gate, "compare", path, path, "--quiet", "--no-git", "--threads", "1"])):
        counted = instructions(cmd, tmp)
        if counted is None:
            print("\n(valgrind not installed: no instruction counts)")
            return
        counts[leg] = counted
    print("\n| leg (%s) | G instructions | of them SHA-256 | without SHA-256 |\n|---|---:|---:|---:|" % name)
    for leg, (total, crypto) in counts.items():
        print("| %s | %.3f | %.3f | %.3f |" % (leg, total / 1e9, crypto / 1e9, (total - crypto) / 1e9))
    legacy = name.startswith("legacy-") or name.startswith("ops50k")
    bare = {leg: total - crypto for leg, (total, crypto) in counts.items()}
    rows = [("inspect --threads 1 / parse-only, without SHA-256", bare["inspect-1"] / max(bare["rapidjson"], 1),
             2.7 if legacy else 1.2),
            ("compare --threads 1 / (2 x inspect --threads 1), without SHA-256",
             bare["compare-1"] / max(2 * bare["inspect-1"], 1), 1.2)]
    print("\n| target in instructions (%s) | ratio | limit | |\n|---|---:|---:|---|" % name)
    for what, ratio, limit in rows:
        print("| %s | %.2f | <= %.2f | %s |" % (what, ratio, limit, "ok" if ratio <= limit else "MISSED"))


def files_of(path):
    if os.path.isdir(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(".json"))
    return [path]


def legs(build, path, tmp):
    """(leg name, command) for one benchmark input (a file, or a folder of rank files)."""
    gate = os.path.join(build, "src", "neuron-gate")
    parse_only = os.path.join(build, "bench", "neuron_gate_parse_only")
    files = files_of(path)
    load = "import json,sys\nfor f in sys.argv[1:]:\n  json.load(open(f, encoding='utf-8'))"
    out = [("cat", ["sh", "-c", 'cat "$@" > /dev/null', "cat"] + files),
           ("json.load", ["python3", "-c", load] + files)]
    if os.path.exists(parse_only):
        available = subprocess.run([parse_only, "--list"], stdout=subprocess.PIPE, text=True).stdout.split()
        for parser in available:
            out.append((parser, [parse_only, parser] + files))
    out.append(("inspect", [gate, "inspect", path]))
    out.append(("inspect-1", [gate, "inspect", path, "--threads", "1"]))
    out.append(("compare", [gate, "compare", path, path, "--quiet", "--no-git"]))
    help_text = subprocess.run([gate, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    if re.search(r"\bdigest\b", help_text):
        out.append(("digest", [gate, "digest", path, "-o", os.path.join(tmp, "digest.out")]))
    return out


def size_of(path):
    return sum(os.path.getsize(f) for f in files_of(path))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", required=True, help="the CMake build directory")
    parser.add_argument("--sizes", default="100,300,1000", help="sizes of the scaled traces in MB")
    parser.add_argument("--only", default="", help="comma-separated names of inputs to run (default all)")
    parser.add_argument("--legs", default="", help="comma-separated legs to run (default all)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per leg; the median is shown")
    parser.add_argument("--instructions", action="store_true",
                        help="also count instructions under callgrind (slow: ~50x a run) for the speed targets")
    args = parser.parse_args()
    tmp = os.path.join(os.path.abspath(args.build), "tmp", "bench")
    subprocess.run([sys.executable, os.path.join(HERE, "make_traces.py"), tmp, "--sizes", args.sizes], check=True)
    names = []
    for size in [int(s) for s in args.sizes.split(",") if s]:
        tag = "%dM" % size if size < 1000 else "%dG" % (size // 1000)
        names += ["kineto-%s.pt.trace.json" % tag, "legacy-%s.pt.trace.json" % tag]
    names += ["ranks64", "ops50k.pt.trace.json"]
    only = [n for n in args.only.split(",") if n]
    wanted_legs = [n for n in args.legs.split(",") if n]
    print("Machine: %s" % machine())
    for name in names:
        if only and not any(o in name for o in only):
            continue
        path = os.path.join(tmp, name)
        size = size_of(path)
        rows = []
        for leg, cmd in legs(args.build, path, tmp):
            if wanted_legs and leg not in wanted_legs:
                continue
            runs = [timed(cmd) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            rss = statistics.median(r[2] for r in runs)
            rows.append((leg, wall, cpu, rss, min(r[0] for r in runs), min(r[1] for r in runs)))
            print("  %s %s: %.2f s" % (name, leg, wall), file=sys.stderr, flush=True)
        base = next((r[1] for r in rows if r[0] == "json.load"), None)
        print("\n### %s (%.0f MB%s)\n" % (name, size / 1e6, ", %d files" % len(files_of(path)) if
                                         os.path.isdir(path) else ""))
        print("| leg | wall s | CPU s | peak RSS MB | MB/s | wall ÷ json.load | RSS ÷ size |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for leg, wall, cpu, rss, _, _ in rows:
            print("| %s | %.2f | %.2f | %.0f | %.0f | %s | %.2f |" % (
                leg, wall, cpu, rss / 1e6, size / 1e6 / max(wall, 1e-3),
                "%.3f" % (wall / base) if base else "–", rss / size))
        print_targets(name, size, {row[0]: (row[4], row[5], row[3]) for row in rows})
        if args.instructions:
            print_instructions(name, args.build, path, tmp)
        sys.stdout.flush()


def targets_of(name):
    """(what, leg, of leg or None for the file size, index 0 wall / 1 CPU / 2 RSS, limit, times the
    of leg counts) for one input."""
    legacy = name.startswith("legacy-") or name.startswith("ops50k")
    out = [("inspect --threads 1 CPU / parse-only CPU", "inspect-1", "rapidjson", 1, 3.0 if legacy else 1.5, 1),
           ("compare wall / inspect wall", "compare", "inspect", 0, 1.2, 1),
           ("compare CPU / (2 x inspect --threads 1 CPU)", "compare", "inspect-1", 1, 1.2, 2)]
    rss_limit = {"kineto-1G": 0.15, "legacy-1G": 0.5, "ops50k": 1.0}
    for prefix, limit in rss_limit.items():
        if name.startswith(prefix):
            out.append(("inspect peak RSS / file size", "inspect", None, 2, limit, 1))
    return out


def print_targets(name, size, legs):
    """The issue-42 targets of one input, each a ratio to a pass of the same run."""
    lines = []
    for what, leg, of, index, limit, times in targets_of(name):
        if leg not in legs or (of is not None and of not in legs):
            continue
        below = legs[of][index] if of is not None else size
        ratio = legs[leg][index] / max(times * below, 1e-3)
        lines.append("| %s | %.2f | <= %.2f | %s |" % (what, ratio, limit, "ok" if ratio <= limit else "MISSED"))
    if lines:
        print("\n| target (%s) | ratio | limit | |\n|---|---:|---:|---|" % name)
        print("\n".join(lines))


def machine():
    try:
        text = subprocess.run(["lscpu"], stdout=subprocess.PIPE, text=True).stdout
        model = re.search(r"Model name:\s*(.*)", text).group(1).strip()
        cpus = re.search(r"^CPU\(s\):\s*(\d+)", text, re.M).group(1)
    except (OSError, AttributeError):
        model, cpus = "unknown", "?"
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return "%s, %s CPUs, %.0f GiB RAM, load %.1f" % (model, cpus, mem, os.getloadavg()[0])


if __name__ == "__main__":
    if shutil.which("/usr/bin/time") is None:
        sys.exit("bench/scale.py needs /usr/bin/time (Debian package time)")
    main()
