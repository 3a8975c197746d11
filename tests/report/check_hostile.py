#!/usr/bin/env python3
"""Checks the outputs neuron-gate wrote for the hostile-names fixture against those for the clean one
(tests/report/check_hostile.sh runs the binary; this script only reads files).

  json       the bytes are valid UTF-8 and parse; dumping and parsing again gives the same value; as many
             metrics and conditions as the clean report
  junit      well-formed XML (Python's expat: XML 1.0, so U+FFFE/U+FFFF or a control character fails);
             as many test cases and failures as the clean report
  html       the same elements (counted by tag name) as the clean report: no <img>, no onerror, no
             comment or element from a name
  terminal   stdout/stderr/inspect text and the --format terminal summary (off a terminal, and on a
             pseudo-terminal where it is coloured): no CR, no ESC or other C0 control but LF and tab, no
             C1 control, no U+2028/U+2029, no bidi control (U+061C, U+200E/F, U+202A-E, U+2066-9); on
             the terminal no escape sequence but the renderer's own colours; the hostile summary has
             the clean one's lines and verdict line; every stderr line is neuron-gate's own
  annotations every line is one workflow command neuron-gate wrote; the input error's one ::error
             (::error / ::warning / ::notice), no CR, and the same kinds and count as the clean run

Usage: check_hostile.py WORK_DIR    (reads WORK_DIR/{hostile,clean}.* written by check_hostile.sh)
Prints one line per check and "N passed, N failed"; exits non-zero on any failure.
"""

import collections
import html.parser
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

passed = failed = 0


def check(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"ok     - {what}")
    else:
        failed += 1
        print(f"FAILED - {what}" + (f"\n  {detail}" if detail else ""))


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def check_json(work):
    docs = {}
    for variant in ("hostile", "clean"):
        data = read_bytes(os.path.join(work, f"{variant}.json"))
        try:
            text = data.decode("utf-8")
            doc = json.loads(text)
            again = json.loads(json.dumps(doc, ensure_ascii=False).encode("utf-8").decode("utf-8"))
            check(again == doc, f"{variant}.json: valid UTF-8, parses, round-trips")
            docs[variant] = doc
        except (UnicodeDecodeError, ValueError) as error:
            check(False, f"{variant}.json: valid UTF-8 and parses", str(error))
    if len(docs) == 2:
        def entries(variant, key):
            return [e for e in docs[variant][key] if key != "open_hypotheses" or INVALID_UTF8_NOTE not in str(e)]
        for key in ("metrics", "conditions", "interpretations", "open_hypotheses"):
            h, c = len(entries("hostile", key)), len(entries("clean", key))
            check(h == c, f"json: {key} {h} in the hostile report, {c} in the clean one")
        names = [m["name"] for m in docs["hostile"]["metrics"]]
        check(any("\r" in n for n in names) and any("\u2028" in n for n in names),
              "json: names keep their CR and U+2028 (JSON escapes them; data, not markup)")
        paths = [f["path"] for f in docs["hostile"]["provenance"]["files"]]
        check(any("\ufffd" in p for p in paths), "json: a file name with invalid UTF-8 is there with U+FFFD")


def check_junit(work):
    counts = {}
    for variant in ("hostile", "clean"):
        try:
            root = ET.parse(os.path.join(work, f"{variant}.junit.xml")).getroot()
            counts[variant] = (len(root.findall(".//testcase")), len(root.findall(".//failure")),
                               len(root.findall(".//skipped")))
            check(True, f"{variant}.junit.xml: well-formed XML 1.0 ({counts[variant][0]} test cases)")
        except ET.ParseError as error:
            check(False, f"{variant}.junit.xml: well-formed XML 1.0", str(error))
    if len(counts) == 2:
        check(counts["hostile"] == counts["clean"],
              f"junit: cases, failures, skipped {counts['hostile']} as in the clean report {counts['clean']}")


# The only lines the hostile report may add: its data-problem notes on names with invalid UTF-8 (the clean
# fixture has none), one list item per side.
INVALID_UTF8_NOTE = "names with invalid UTF-8"


class Tags(html.parser.HTMLParser):
    """Element names in document order, without the list items that are invalid-UTF-8 notes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.bad, self.items = [], [], []  # items: open <li> as [start index, text]

    def handle_starttag(self, tag, attrs):
        if tag == "li":
            self.items.append([len(self.tags), ""])
        self.tags.append(tag)
        for name, _ in attrs:
            if name.startswith("on"):
                self.bad.append(f"<{tag} {name}>")

    def handle_data(self, data):
        for item in self.items:
            item[1] += data

    def handle_endtag(self, tag):
        if tag == "li" and self.items:
            start, text = self.items.pop()
            if INVALID_UTF8_NOTE in text:
                del self.tags[start:]

    def handle_comment(self, data):
        self.bad.append(f"<!--{data[:40]}")


def check_html(work):
    parsed = {}
    for variant in ("hostile", "clean"):
        parser = Tags()
        parser.feed(read_bytes(os.path.join(work, f"{variant}.html")).decode("utf-8"))
        parsed[variant] = parser
    h, c = parsed["hostile"], parsed["clean"]
    check(not h.bad, "html: no event-handler attribute and no comment", "; ".join(h.bad[:5]))
    # Counted, not in order: ops of equal change are ordered by name, and charts draw them in that order.
    hc, cc = collections.Counter(h.tags), collections.Counter(c.tags)
    check(hc == cc, f"html: the same {len(c.tags)} elements (by tag) as the clean report",
          f"hostile - clean: {dict(hc - cc)}; clean - hostile: {dict(cc - hc)}")
    check("img" not in h.tags, "html: no <img> element")


BAD_TERMINAL = re.compile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u2028\u2029"
                          "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")  # bidi controls (Trojan Source)
# The only escape sequences the terminal summary may hold on a tty: its own colours (report/terminal.cpp).
OWN_SGR = re.compile("\x1b\\[(?:0|1|1;31|1;32|1;33)m")


def check_terminal(work):
    for name in ("hostile.stdout", "hostile.stderr", "inspect.out", "inspect.err", "broken.stderr",
                 "calibrate.out", "hostile.terminal", "hostile.tty"):
        path = os.path.join(work, name)
        if not os.path.exists(path):
            check(False, f"{name}: exists")
            continue
        data = read_bytes(path)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            check(False, f"{name}: valid UTF-8", str(error))
            continue
        if name.endswith(".tty"):
            own = len(OWN_SGR.findall(text))
            check(own >= 2, f"{name}: coloured on a terminal ({own} colour sequences of the renderer's own)")
            text = OWN_SGR.sub("", text).replace("\r\n", "\n")  # the pty turns LF into CR LF
        bad = BAD_TERMINAL.search(text)
        check(bad is None, f"{name}: no control character, CR, ESC, C1 control or Unicode line break",
              repr(text[max(0, bad.start() - 30):bad.end() + 10]) if bad else "")
        commands = [line for line in text.split("\n") if line.startswith("::") or line.startswith("##[")]
        check(not commands, f"{name}: no line a runner would read as a workflow command", repr(commands[:3]))
        if name.endswith("stderr") and text:
            foreign = [line for line in text.split("\n") if line and not line.startswith("neuron-gate: ")]
            check(not foreign, f"{name}: every line is neuron-gate's own", repr(foreign[:3]))


COMMAND = re.compile(r"^::(error|warning|notice)( [a-z]+=[^:,\r\n]*(,[a-z]+=[^:,\r\n]*)*)?::[^\r\n]*$")


def check_terminal_summary(work):
    """The --format terminal summary of the hostile names has the clean one's lines, row for row."""
    texts = {}
    for variant in ("hostile", "clean"):
        for kind in ("terminal", "tty"):
            path = os.path.join(work, f"{variant}.{kind}")
            texts[(variant, kind)] = read_bytes(path).decode("utf-8", "replace") if os.path.exists(path) else ""
    for kind in ("terminal", "tty"):
        h = OWN_SGR.sub("", texts[("hostile", kind)]).replace("\r\n", "\n").split("\n")
        c = OWN_SGR.sub("", texts[("clean", kind)]).replace("\r\n", "\n").split("\n")
        check(len(h) == len(c) and len(c) > 5, f"{kind} summary: {len(h)} lines, as the clean one's {len(c)}",
              repr(h[:12]))
        # The headline names the end-to-end metric: the same words around the name.
        check(h[0].split("`")[0] == c[0].split("`")[0] and h[0].rsplit("` ", 1)[-1] == c[0].rsplit("` ", 1)[-1],
              f"{kind} summary: the verdict line is the clean one's but for the name ({c[0][:60]})", repr(h[0][:200]))
        check("DESSERGER\ufffd" in h[0], f"{kind} summary: the metric name's right-to-left override is replaced",
              repr(h[0][:200]))
        rows = [line for line in h if "→" in line and line.startswith("  ")]
        check(len(rows) > 0 and "DESSERGER\ufffd" in rows[0],
              f"{kind} summary: the deciding row names the metric, override replaced", repr(rows[:2]))


def check_annotations(work):
    kinds = {}
    for variant in ("hostile", "clean"):
        path = os.path.join(work, f"{variant}.annotations")
        check(os.path.exists(path), f"{variant}.annotations written")
        if not os.path.exists(path):
            return
        text = read_bytes(path).decode("utf-8")
        lines = text.split("\n")
        check(lines[-1] == "", f"{variant}.annotations: ends with a newline")
        bad = [line for line in lines[:-1] if not COMMAND.match(line)]
        check(not bad, f"{variant}.annotations: each of {len(lines) - 1} lines is one escaped workflow command",
              repr(bad[:3]))
        check("\r" not in text and not BAD_TERMINAL.search(text), f"{variant}.annotations: no control character")
        kinds[variant] = [line.split("::")[1].split(" ")[0] for line in lines[:-1]]
    if len(kinds) == 2:
        check(kinds["hostile"] == kinds["clean"],
              f"annotations: the same kinds in the same order as the clean run {kinds['clean']}",
              repr(kinds["hostile"]))
    # The input error of the trace named with LF + ::stop-commands::: one ::error line that carries the
    # name as data (its LF shown as a symbol), never a second command.
    path = os.path.join(work, "broken.annotations")
    check(os.path.exists(path), "broken.annotations written on the input error")
    if os.path.exists(path):
        lines = read_bytes(path).decode("utf-8").split("\n")
        check(len(lines) == 2 and lines[1] == "" and COMMAND.match(lines[0]) is not None
              and lines[0].startswith("::error "),
              "broken.annotations: one ::error command", repr(lines[:3]))
        check("stop-commands" in lines[0], "broken.annotations: names the file (as data)", repr(lines[0][:200]))


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    work = argv[1]
    check_json(work)
    check_junit(work)
    check_html(work)
    check_terminal(work)
    check_terminal_summary(work)
    check_annotations(work)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
