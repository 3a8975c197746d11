#!/usr/bin/env python3
"""Runs a composite action.yml locally the way the GitHub runner would, for tests/action/test_action.sh.

Enough of the runner for this repository's actions, and strict about the rest (anything it does not
understand is an error, so a change to action.yml that it cannot follow fails the test instead of being
skipped):
  - the YAML subset action.yml and the documented workflows use (mappings, lists, plain/quoted scalars,
    trailing comments, flow lists of plain words such as [self-hosted, trainium], | and >- block scalars), read
    with the standard library only (PyYAML is not on every Debian image);
  - ${{ inputs.X }}, ${{ steps.ID.outputs.X }}, ${{ github.token }}, ${{ github.action_path }},
    ${{ github.action_ref }}, ${{ github.action_repository }} (--action-ref, --action-repository; empty by
    default, as in a local action), ${{ github.event.A.B }} (from $GITHUB_EVENT_PATH; "" when absent), ${{ runner.temp }} in env/with/outputs values, and `A || B` (the first
    non-empty); `if:` as `REF == 'x'`, `REF != 'x'` joined by `&&`, success(), always();
  - `shell: bash` steps run as the runner does: bash --noprofile --norc -eo pipefail FILE, in the workspace,
    with GITHUB_ACTION_PATH, a fresh GITHUB_OUTPUT per step (name=value and name<<EOF forms), and the step's
    env on top of this process's environment (GITHUB_EVENT_PATH, GITHUB_REPOSITORY, GITHUB_STEP_SUMMARY, ...);
  - `uses:` steps are not run (listed as skipped; their outputs are empty), nor steps named with --skip;
  - the action's outputs go to this process's $GITHUB_OUTPUT, like a composite action's outputs to its caller.
Exit code: that of the first failing step (the runner fails the action there), else 0.

Usage: mini_runner.py ACTION_YML --workspace DIR [--input NAME=VALUE]... [--skip STEP_NAME]...
                      [--token TOKEN] [--action-ref REF] [--action-repository OWNER/REPO]
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


class YamlError(Exception):
    pass


def parse_yaml(text):
    lines = []
    for raw in text.splitlines():
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            lines.append((None, raw))  # kept for block scalars (blank lines)
        else:
            lines.append((len(raw) - len(raw.lstrip(" ")), raw))
    value, index = parse_node(lines, next_content(lines, 0), 0)
    if next_content(lines, index) < len(lines):
        raise YamlError(f"unexpected line {index + 1}: {lines[index][1]}")
    return value


def next_content(lines, index):
    while index < len(lines) and lines[index][0] is None:
        index += 1
    return index


def parse_node(lines, index, indent):
    if index >= len(lines):
        return None, index
    line_indent, raw = lines[index]
    if line_indent < indent:
        return None, index
    if raw.strip().startswith("- ") or raw.strip() == "-":
        return parse_sequence(lines, index, line_indent)
    return parse_mapping(lines, index, line_indent)


def parse_sequence(lines, index, indent):
    items = []
    while index < len(lines) and lines[index][0] == indent and lines[index][1].strip().startswith("-"):
        raw = lines[index][1]
        rest = raw.strip()[1:].lstrip(" ")
        if not rest:
            value, index = parse_node(lines, next_content(lines, index + 1), indent + 1)
        else:
            # "- key: value" starts a mapping whose keys sit at the column after "- "
            column = indent + (len(raw.strip()) - len(rest))
            lines[index] = (column, " " * column + rest)
            value, index = parse_node(lines, index, column)
        items.append(value)
        index = next_content(lines, index)
    return items, index


KEY = re.compile(r"^([A-Za-z0-9_.-]+):(?:\s+(.*))?$")


def parse_mapping(lines, index, indent):
    mapping = {}
    while index < len(lines) and lines[index][0] == indent:
        raw = lines[index][1].strip()
        match = KEY.match(raw)
        if not match:
            raise YamlError(f"line {index + 1}: not a 'key: value' line: {raw}")
        key, rest = match.group(1), (match.group(2) or "").strip()
        if key in mapping:
            raise YamlError(f"line {index + 1}: duplicate key {key}")
        if rest in ("|", "|-", ">", ">-"):
            mapping[key], index = parse_block_scalar(lines, index + 1, indent, rest)
        elif rest:
            mapping[key] = scalar(rest, index)
            index += 1
        else:
            following = next_content(lines, index + 1)
            if following < len(lines) and lines[following][0] > indent:
                mapping[key], index = parse_node(lines, following, lines[following][0])
            else:
                mapping[key], index = None, index + 1
        index = next_content(lines, index)
    if index < len(lines) and lines[index][0] > indent:
        raise YamlError(f"line {index + 1}: unexpected indentation: {lines[index][1]}")
    return mapping, index


def parse_block_scalar(lines, index, indent, style):
    body, block_indent = [], None
    while index < len(lines):
        line_indent, raw = lines[index]
        if line_indent is not None and line_indent <= indent:
            break
        if line_indent is not None and block_indent is None:
            block_indent = line_indent
        body.append(raw[block_indent:] if block_indent is not None and raw.strip() else "")
        index += 1
    while body and not body[-1]:
        body.pop()
    if style.startswith("|"):
        text = "\n".join(body)
    else:
        text = ""
        for line in body:
            text += ("\n" if not line else (" " if text and not text.endswith("\n") else "") + line)
    return text + ("" if style.endswith("-") else "\n"), index


def scalar(text, index):
    if text[0] not in "\"'":  # a plain scalar ends before " #" (a comment), as in YAML
        text = re.sub(r"\s+#.*$", "", text)
    if text.startswith("[") and text.endswith("]") and not re.search(r"[\[\]{}\"']", text[1:-1]):
        return [item.strip() for item in text[1:-1].split(",") if item.strip()]  # a flow list of plain words
    if text[0] in "\"'":
        if len(text) < 2 or text[-1] != text[0]:
            raise YamlError(f"line {index + 1}: unterminated quoted scalar {text}")
        inner = text[1:-1]
        return inner.replace("''", "'") if text[0] == "'" else inner.replace('\\"', '"').replace("\\\\", "\\")
    if text.startswith(("[", "{", "&", "*", "!")):
        raise YamlError(f"line {index + 1}: flow/anchor/tag syntax is not supported by mini_runner: {text}")
    return text


class Runner:
    def __init__(self, action_path, workspace, inputs, token, temp, action_ref="", action_repository=""):
        self.action_path, self.workspace, self.inputs = action_path, workspace, inputs
        self.token, self.temp = token, temp
        self.action_ref, self.action_repository = action_ref, action_repository
        self.steps = {}

    def reference(self, ref):
        if "||" in ref:  # GitHub's ||: the first operand that is not empty (all ours are strings)
            values = [self.reference(part) for part in ref.split("||")]
            return next((value for value in values if value), values[-1])
        ref = ref.strip()
        parts = ref.split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            if parts[1] not in self.inputs:
                raise YamlError(f"unknown input {parts[1]}")
            return self.inputs[parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], "")
        if parts[:2] == ["github", "event"]:  # from $GITHUB_EVENT_PATH, "" where absent (as GitHub does)
            value = json.load(open(os.environ["GITHUB_EVENT_PATH"])) if os.environ.get("GITHUB_EVENT_PATH") else {}
            for key in parts[2:]:
                value = value.get(key) if isinstance(value, dict) else None
            return "" if value is None else str(value)
        known = {"github.token": self.token, "github.action_path": self.action_path, "runner.temp": self.temp,
                 "github.action_ref": self.action_ref, "github.action_repository": self.action_repository}
        if ref in known:
            return known[ref]
        raise YamlError(f"mini_runner does not know the expression '{ref}'")

    def expand(self, value):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: str(self.reference(m.group(1))), str(value))

    def condition(self, text, failed):
        text = text.strip()
        if text.startswith("${{") and text.endswith("}}"):
            text = text[3:-2].strip()
        if text in ("success()", ""):
            return not failed
        if text == "always()":
            return True
        result = not failed
        for part in text.split("&&"):
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(==|!=)\s*'([^']*)'", part.strip())
            if not match:
                raise YamlError(f"mini_runner does not know the condition '{text}'")
            equal = self.reference(match.group(1)) == match.group(3)
            result = result and (equal if match.group(2) == "==" else not equal)
        return result


def read_outputs(path):
    outputs, lines = {}, open(path, encoding="utf-8").read().splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body, index = [], index + 1
            while index < len(lines) and lines[index] != delimiter:
                body.append(lines[index])
                index += 1
            outputs[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
        elif line:
            raise YamlError(f"bad GITHUB_OUTPUT line: {line}")
        index += 1
    return outputs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("action")
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--input", action="append", default=[])
    parser.add_argument("--skip", action="append", default=[])
    parser.add_argument("--token", default="fake-github-token")
    parser.add_argument("--action-ref", default="")
    parser.add_argument("--action-repository", default="")
    args = parser.parse_args()

    action_path = os.path.dirname(os.path.abspath(args.action))
    with open(args.action, encoding="utf-8") as f:
        action = parse_yaml(f.read())
    runs = action.get("runs") or {}
    if runs.get("using") != "composite":
        raise YamlError("not a composite action")
    temp = os.environ.get("RUNNER_TEMP") or tempfile.mkdtemp()

    given = dict(item.split("=", 1) for item in args.input)
    declared = action.get("inputs") or {}
    for name in given:
        if name not in declared:
            raise YamlError(f"the action has no input '{name}'")
    runner = Runner(action_path, args.workspace, {}, args.token, temp, args.action_ref, args.action_repository)
    for name, spec in declared.items():
        spec = spec or {}
        if name in given:
            runner.inputs[name] = given[name]
        elif str(spec.get("required", "false")).lower() == "true" and "default" not in spec:
            raise YamlError(f"required input '{name}' not given")
        else:
            runner.inputs[name] = runner.expand(spec.get("default") or "")

    failed, exit_code = False, 0
    for number, step in enumerate(runs.get("steps") or [], 1):
        name = step.get("name") or step.get("id") or f"step {number}"
        if "if" in step and not runner.condition(str(step["if"]), failed):
            print(f"[mini_runner] {name}: skipped (if: {step['if']})", file=sys.stderr)
            continue
        if "if" not in step and failed:
            continue
        if name in args.skip:
            print(f"[mini_runner] {name}: skipped (--skip)", file=sys.stderr)
            continue
        if "uses" in step:
            print(f"[mini_runner] {name}: skipped (uses: {step['uses']})", file=sys.stderr)
            continue
        if step.get("shell") != "bash" or "run" not in step:
            raise YamlError(f"step '{name}': only 'shell: bash' run steps are supported")
        env = dict(os.environ)
        env.update({key: runner.expand(value or "") for key, value in (step.get("env") or {}).items()})
        with tempfile.TemporaryDirectory() as scratch:
            script, output = os.path.join(scratch, "step.sh"), os.path.join(scratch, "output")
            with open(script, "w", encoding="utf-8") as f:
                f.write(runner.expand(step["run"]))
            open(output, "w").close()
            env.update({"GITHUB_ACTION_PATH": action_path, "GITHUB_OUTPUT": output,
                        "GITHUB_WORKSPACE": args.workspace, "RUNNER_TEMP": temp})
            print(f"[mini_runner] {name}: running", file=sys.stderr)
            sys.stdout.flush()
            code = subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                                   cwd=args.workspace, env=env)
            if step.get("id"):
                runner.steps[step["id"]] = read_outputs(output)
        if code != 0:
            print(f"[mini_runner] {name}: failed with exit code {code}", file=sys.stderr)
            failed, exit_code = True, code

    caller_output = os.environ.get("GITHUB_OUTPUT")
    lines = [f"{name}={runner.expand((spec or {}).get('value', ''))}"
             for name, spec in (action.get("outputs") or {}).items()]
    if caller_output:
        with open(caller_output, "a", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in lines))
    return exit_code


if __name__ == "__main__":
    try:
        sys.exit(main())
    except YamlError as error:
        print(f"mini_runner: {error}", file=sys.stderr)
        sys.exit(99)
