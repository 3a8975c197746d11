#!/usr/bin/env python3
"""Runs one documented workflow (a `# .github/workflows/NAME.yml` block of docs/github-action.md) locally,
job after job, for tests/action/test_action.sh (issue 41 item 3: every workflow in the docs installs what it
calls and is run).

Each job gets a fresh workspace and RUNNER_TEMP (as a GitHub-hosted job does), and PATH holds no
`neuron-gate` and no capture helper: a step that calls one that no earlier step of its job installed fails.
  - `run:` steps: bash --noprofile --norc -eo pipefail in the workspace, `env:` and ${{ }} expanded;
  - actions/checkout: `repository: your-org/neuron-gate` is this checkout (a symbolic link); any other is a
    clone of --origin (a bare repository standing for the user's) at `ref`, else the event's head commit,
    with `origin` set, so `git fetch origin` and `git push origin` work against it;
  - actions/upload-artifact and actions/download-artifact: folders under --artifacts (one store per workflow
    run; with `run-id`, the store given by --run-artifacts); uploading a name twice fails, as v4 does;
  - `uses: your-org/neuron-gate@REF` and `.../post-comment@REF`: mini_runner.py on this checkout's action.yml
    with the step's `with:` as inputs; its outputs become the step's.
Expressions: github.event.*, github.token, runner.temp, steps.ID.outputs.X; `if:` of always(), success(),
`X == 'v'` and `X != 'v'` joined by &&. Anything else is an error (exit 99).
Prints one line per step; writes --results JSON: job -> {"result", "steps": {id: outputs}}.
Exit code 0 when it ran (the jobs' results are in the JSON), 99 when it could not follow the workflow.

The action's build folder is laid out in RUNNER_TEMP as a cache hit restores it (NG_TEST_BINARY, built for
NG_TEST_CACHE_KEY), so the action reuses the binary under test.

Usage: run_workflow.py WORKFLOW_YML --root ROOT --origin BARE_REPO --event EVENT_JSON --artifacts DIR
                       --work DIR --results FILE [--run-artifacts DIR]
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mini_runner import YamlError, parse_yaml  # noqa: E402


class Job:
    def __init__(self, args, event, name, spec):
        self.args, self.event, self.name, self.spec = args, event, name, spec
        self.workspace = os.path.join(args.work, name, "workspace")
        self.temp = os.path.join(args.work, name, "runner-temp")
        os.makedirs(self.workspace)
        os.makedirs(self.temp)
        self.steps = {}
        if os.environ.get("NG_TEST_BINARY"):  # what the action's build cache restores: the binary and its key
            build = os.path.join(self.temp, "neuron-gate-build")
            os.makedirs(os.path.join(build, "src"))
            os.symlink(os.environ["NG_TEST_BINARY"], os.path.join(build, "src", "neuron-gate"))
            with open(os.path.join(build, ".neuron-gate-key"), "w") as f:
                f.write(os.environ.get("NG_TEST_CACHE_KEY", "") + "\n")

    def reference(self, ref):
        ref = ref.strip()
        parts = ref.split(".")
        if parts[:2] == ["github", "event"]:
            value = self.event
            for key in parts[2:]:
                value = value.get(key) if isinstance(value, dict) else None
            return "" if value is None else str(value)
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.steps.get(parts[1], {}).get(parts[3], "")
        if ref == "github.token":
            return "fake-github-token"
        if ref == "runner.temp":
            return self.temp
        raise YamlError(f"run_workflow does not know the expression '{ref}'")

    def expand(self, value):
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: self.reference(m.group(1)), str(value))

    def condition(self, text, failed):
        text = str(text).strip()
        if text.startswith("${{") and text.endswith("}}"):
            text = text[3:-2].strip()
        parts = [part.strip() for part in text.split("&&")]
        result = not failed
        if "always()" in parts:
            result = True
            parts.remove("always()")
        for part in parts:
            if part == "success()":
                result = result and not failed
                continue
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*(==|!=)\s*'([^']*)'", part)
            if not match:
                raise YamlError(f"run_workflow does not know the condition '{text}'")
            equal = self.reference(match.group(1)) == match.group(3)
            result = result and (equal if match.group(2) == "==" else not equal)
        return result

    def env(self):
        env = dict(os.environ)
        env.update({"GITHUB_WORKSPACE": self.workspace, "RUNNER_TEMP": self.temp})
        return env

    def path(self, relative):
        return relative if os.path.isabs(relative) else os.path.join(self.workspace, relative)

    def checkout(self, given):
        repository = given.get("repository", "")
        target = self.path(given.get("path", "") or ".")
        if repository == "your-org/neuron-gate":
            os.symlink(self.args.root, target)
            return 0
        if repository:
            raise YamlError(f"actions/checkout of an unknown repository {repository}")
        ref = given.get("ref") or self.reference("github.event.pull_request.head.sha") or \
            self.reference("github.event.after")
        clone = os.path.join(self.temp, "clone")
        git = ["git", "-c", "advice.detachedHead=false"]
        if subprocess.call(git + ["clone", "-q", self.args.origin, clone]) != 0 or \
                subprocess.call(git + ["-C", clone, "checkout", "-q", ref]) != 0:
            return 1
        os.makedirs(target, exist_ok=True)
        for entry in os.listdir(clone):
            shutil.move(os.path.join(clone, entry), os.path.join(target, entry))
        os.rmdir(clone)
        return 0

    def action(self, yml, given, step_id):
        output = os.path.join(self.temp, f"outputs-{step_id or 'action'}")
        open(output, "w").close()
        command = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "mini_runner.py"), yml,
                   "--workspace", self.workspace, "--skip", "Install build dependencies (Debian/Ubuntu)"]
        for name, value in given.items():
            command += ["--input", f"{name}={value}"]
        env = self.env()
        env["GITHUB_OUTPUT"] = output
        env["GITHUB_EVENT_PATH"] = self.args.event
        env["GITHUB_STEP_SUMMARY"] = os.path.join(self.temp, "summary.md")
        code = subprocess.call(command, cwd=self.workspace, env=env)
        if step_id:
            self.steps[step_id] = dict(line.split("=", 1) for line in open(output).read().splitlines() if "=" in line)
        return code

    def step(self, step):
        given = {key: self.expand(value) for key, value in (step.get("with") or {}).items()}
        uses = step.get("uses", "")
        if not uses:
            env = self.env()
            env.update({key: self.expand(value) for key, value in (step.get("env") or {}).items()})
            script = os.path.join(self.temp, "step.sh")
            with open(script, "w", encoding="utf-8") as f:
                f.write(self.expand(step["run"]))
            return subprocess.call(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=self.workspace,
                                   env=env)
        if uses.startswith("actions/checkout@"):
            return self.checkout(given)
        if uses.startswith("actions/upload-artifact@"):
            store = os.path.join(self.args.artifacts, given["name"])
            if os.path.exists(store):
                print(f"[run_workflow] an artifact named {given['name']} exists already", file=sys.stderr)
                return 1
            source = self.path(given["path"].rstrip("/"))
            if not os.path.isdir(source):
                return 1
            shutil.copytree(source, store)
            return 0
        if uses.startswith("actions/download-artifact@"):
            store = os.path.join(self.args.run_artifacts if given.get("run-id") else self.args.artifacts, given["name"])
            if not os.path.isdir(store):
                return 1
            shutil.copytree(store, self.path(given.get("path") or "."), dirs_exist_ok=True)
            return 0
        match = re.fullmatch(r"your-org/neuron-gate(/post-comment)?@[\w.-]+", uses)
        if match:
            yml = os.path.join(self.args.root, "post-comment" if match.group(1) else "", "action.yml")
            return self.action(yml, given, step.get("id"))
        raise YamlError(f"run_workflow does not know the action {uses}")

    def run(self):
        failed = False
        for number, step in enumerate(self.spec.get("steps") or [], 1):
            label = step.get("name") or step.get("id") or step.get("uses") or f"step {number}"
            if not self.condition(step.get("if", "success()"), failed):
                print(f"[run_workflow] {self.name}: {label}: skipped", file=sys.stderr)
                continue
            sys.stdout.flush()
            code = self.step(step)
            print(f"[run_workflow] {self.name}: {label}: exit code {code}", file=sys.stderr)
            failed = failed or code != 0
        return "failure" if failed else "success"


def main():
    parser = argparse.ArgumentParser()
    for option in ("--root", "--origin", "--event", "--artifacts", "--work", "--results"):
        parser.add_argument(option, required=True)
    parser.add_argument("workflow")
    parser.add_argument("--run-artifacts", default="")
    args = parser.parse_args()
    workflow = parse_yaml(open(args.workflow, encoding="utf-8").read())
    event = json.load(open(args.event))
    os.makedirs(args.artifacts, exist_ok=True)
    results = {}
    for name, spec in (workflow.get("jobs") or {}).items():
        needs = spec.get("needs") or []
        needs = [needs] if isinstance(needs, str) else needs
        job = Job(args, event, name, spec)
        if any(results.get(need, {}).get("result") != "success" for need in needs):
            results[name] = {"result": "skipped", "steps": {}}
        elif "if" in spec and not job.condition(spec["if"], False):
            results[name] = {"result": "skipped", "steps": {}}
        else:
            results[name] = {"result": job.run(), "steps": job.steps}
        print(f"[run_workflow] job {name}: {results[name]['result']}", file=sys.stderr)
    json.dump(results, open(args.results, "w"), indent=1)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (YamlError, KeyError) as error:
        print(f"run_workflow: {error!r}", file=sys.stderr)
        sys.exit(99)
