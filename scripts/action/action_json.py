#!/usr/bin/env python3
"""JSON handling for the GitHub Action's shell scripts (run.sh, comment.sh). Event and `gh` glue only:
verdicts, findings and annotations are neuron-gate's (compare --json, --annotations).

python3 instead of jq: python3 is on GitHub's runners and on the Debian images the tests run in; jq is not
everywhere. Standard library only. Each subcommand prints plain text for the shell (one value a line, or
NUL-separated where said), or writes the file it is given.

  split-args STRING                  shell-like split of the `args` input, NUL-separated (no shell evaluation)
  verdict EXIT_CODE [REPORT_JSON]    pass | regression | error | not-comparable | no-decision:
                                     the report's `verdict` when it has one (exit code 0 is pass or no
                                     decision, 4 no decision under --strict), else by code
  regressions REPORT_JSON            gating metrics REGRESSED without a waiver (0 when there is no report)
  fallback-markdown STDERR_FILE EXIT_CODE OUT
                                     a short Markdown report when neuron-gate wrote none (usage/input error)
  write-meta OUT EXIT_CODE VERDICT [KEY]
                                     comment.json: what the comment job needs (PR number from the event;
                                     comment_key: the comment key, "" for none)
  comment-target REPORT_DIR          "PR_NUMBER HEAD_SHA_TO_VERIFY VERDICT RUN_ID CONCLUSION HEAD_REPO" for
                                     comment.sh ("-" where none; RUN_ID, CONCLUSION and HEAD_REPO: the
                                     workflow_run event's; HEAD_REPO "?" when the event names none)
  find-comment LIST_FILE LOGIN [KEY] id of the sticky comment in `gh api --paginate` output: the first one
                                     written by LOGIN whose FIRST line is the marker of KEY; nothing when none
  comment-body REPORT_MD OUT [NOTE] [KEY]
                                     {"body": ...}: the marker of KEY as the first line, then NOTE (if any),
                                     then the report, cut to GitHub's 65,536-character limit
  check-key KEY                      exit 0 when KEY is a valid comment key ("" or 1-64 of A-Z a-z 0-9 . _ -)
  get FILE KEY[.KEY...]              one value from a JSON file (empty when absent or null)
"""

import json
import os
import re
import shlex
import sys

MARKER = "<!-- neuron-gate -->"
# A comment key (input comment-key, compare --comment-key): one sticky comment per key, e.g. per matrix entry.
KEY_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")


def valid_key(key):
    return key == "" or KEY_PATTERN.fullmatch(key) is not None


def marker_for(key=""):
    """The marker line: MARKER without a key, `<!-- neuron-gate key=KEY -->` with one (the same line
    neuron-gate's Markdown ends with under --comment-key). An invalid key is refused, never embedded."""
    if not valid_key(key):
        raise ValueError(f"invalid comment key {key!r}")
    return MARKER if key == "" else f"<!-- neuron-gate key={key} -->"


def is_marker_line(line):
    """Any neuron-gate marker line, with or without a key."""
    line = line.strip()
    return line == MARKER or (line.startswith("<!-- neuron-gate key=") and line.endswith(" -->"))
COMMENT_LIMIT = 65536
# neuron-gate's exit codes when there is no JSON report to read them from (a usage or input error writes
# none); a report carries the binary's own table as `exit_codes` (compare/judgement.hpp k_exit_codes).
VERDICTS = {0: "pass", 1: "regression", 2: "error", 3: "not-comparable", 4: "no-decision"}
KNOWN_VERDICTS = set(VERDICTS.values())


def report_verdicts(report):
    """The exit-code table of a JSON report ({code: verdict}), or the fallback when it has none."""
    table = report.get("exit_codes") if isinstance(report, dict) else None
    if not isinstance(table, dict):
        return VERDICTS
    verdicts = {}
    for code, row in table.items():
        if isinstance(row, dict) and row.get("verdict") in KNOWN_VERDICTS and str(code).isdigit():
            verdicts[int(code)] = row["verdict"]
    return verdicts or VERDICTS


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def verdict_for(code, report_path=None):
    """The verdict: the JSON report's own when it states a known one for this exit code (a report left
    from an earlier run does not count), else the exit code's."""
    try:
        code = int(code)
    except ValueError:
        return "error"
    report = load_json(report_path) if report_path else None
    if isinstance(report, dict) and report.get("verdict") in KNOWN_VERDICTS and report.get("exit_code") == code:
        return report["verdict"]
    fresh = isinstance(report, dict) and report.get("exit_code") == code  # not a report of an earlier run
    return (report_verdicts(report) if fresh else VERDICTS).get(code, "error")


def cmd_split_args(text):
    try:
        args = shlex.split(text)
    except ValueError as error:  # an unbalanced quote: "No closing quotation"
        sys.stderr.write("neuron-gate action: %s\n" % error)
        sys.exit(2)
    sys.stdout.write("".join(arg + "\0" for arg in args))


def gating_regressions(report):
    if not isinstance(report, dict):
        return []
    if isinstance(report.get("operating_points"), list):  # schema neuron-gate.points/1: each point's report
        return [m for point in report["operating_points"] if isinstance(point, dict)
                for m in gating_regressions(point.get("report"))]
    return [m for m in report.get("metrics") or []
            if m.get("gating") and m.get("verdict") == "REGRESSED" and not m.get("waiver")]


def cmd_regressions(path):
    print(len(gating_regressions(load_json(path))))


def cmd_fallback_markdown(stderr_path, code, out):
    try:
        with open(stderr_path, encoding="utf-8", errors="replace") as f:
            message = f.read().strip()
    except OSError:
        message = ""
    if len(message) > 4000:
        message = message[:4000] + "\n[cut]"
    message = message.replace("```", "'''") or "(no message)"
    text = (f"## ⚠️ neuron-gate could not compare (exit code {code}, {verdict_for(code)})\n\n"
            f"neuron-gate wrote no report; its message:\n\n```\n{message}\n```\n\n{MARKER}\n")
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)


def event_pr(event):
    """PR number and head sha from a pull_request / pull_request_target / issue_comment event."""
    if not isinstance(event, dict):
        return None, None
    pr = event.get("pull_request")
    if isinstance(pr, dict) and isinstance(pr.get("number"), int):
        return pr["number"], (pr.get("head") or {}).get("sha")
    issue = event.get("issue")
    if isinstance(issue, dict) and issue.get("pull_request") and isinstance(issue.get("number"), int):
        return issue["number"], None
    return None, None


def cmd_write_meta(out, code, verdict, key=""):
    event = load_json(os.environ.get("GITHUB_EVENT_PATH", "")) if os.environ.get("GITHUB_EVENT_PATH") else None
    number, sha = event_pr(event)
    meta = {
        "schema": "neuron-gate.comment/1",
        "pr_number": number,
        "head_sha": sha,
        "repository": os.environ.get("GITHUB_REPOSITORY"),
        "run_id": os.environ.get("GITHUB_RUN_ID"),
        "verdict": verdict,
        "exit_code": int(code),
        "comment_key": key if valid_key(key) else "",
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")


def cmd_comment_target(report_dir):
    """In a workflow_run job the PR number comes from the artifact (written by the PR's own workflow, so not
    trusted): it must be a positive integer, and comment.sh checks that the PR's head is the commit and the
    repository the triggering run built. Otherwise the PR comes from the event itself."""
    meta = load_json(os.path.join(report_dir, "comment.json"))
    meta = meta if isinstance(meta, dict) else {}
    verdict = meta.get("verdict") if meta.get("verdict") in KNOWN_VERDICTS else "unknown"
    event = load_json(os.environ.get("GITHUB_EVENT_PATH", "")) if os.environ.get("GITHUB_EVENT_PATH") else None
    run = event.get("workflow_run") if isinstance(event, dict) else None
    if isinstance(run, dict):
        number = meta.get("pr_number")
        if not (isinstance(number, int) and not isinstance(number, bool) and number > 0):
            print(f"invalid pr_number in comment.json: {number!r}", file=sys.stderr)
            sys.exit(1)
        sha = run.get("head_sha") or ""
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            print("the workflow_run event has no head_sha to check the PR against", file=sys.stderr)
            sys.exit(1)
        # The run's id and conclusion come from the event (GitHub's), never from the artifact.
        run_id = run.get("id")
        run_id = run_id if isinstance(run_id, int) and not isinstance(run_id, bool) and run_id > 0 else "-"
        conclusion = run.get("conclusion")
        conclusion = conclusion if isinstance(conclusion, str) and re.fullmatch(r"[a-z_]{1,32}", conclusion) else "unknown"
        # "?" matches no repository: an event without one posts nothing (fails closed).
        head_repo = run.get("head_repository")
        head_repo = head_repo.get("full_name") if isinstance(head_repo, dict) else None
        head_repo = head_repo if isinstance(head_repo, str) and re.fullmatch(r"[A-Za-z0-9._-]{1,100}/[A-Za-z0-9._-]{1,100}", head_repo) else "?"
        print(number, sha, verdict, run_id, conclusion, head_repo)
        return
    number, _ = event_pr(event)
    print(number if number else "-", "-", verdict, "-", "-", "-")


def json_values(text):
    """All top-level JSON values in `text`: gh --paginate may print one array per page back to back."""
    decoder, index, values = json.JSONDecoder(), 0, []
    while True:
        while index < len(text) and text[index].isspace():
            index += 1
        if index >= len(text):
            return values
        value, index = decoder.raw_decode(text, index)
        values.append(value)


def is_sticky_comment(comment, login, key=""):
    """Ours: written by `login` (the token's own user) and the marker as the body's first line. Anyone can
    post a comment carrying the marker; only the token's user can have written this one, so another user's
    comment (a PR author's decoy, a reply quoting the report) is never edited or taken for the report."""
    if not isinstance(comment, dict) or not isinstance(comment.get("id"), int):
        return False
    user = comment.get("user") if isinstance(comment.get("user"), dict) else {}
    if user.get("login") != login:
        return False
    body = comment.get("body") if isinstance(comment.get("body"), str) else ""
    return body.split("\n", 1)[0].rstrip("\r").strip() == marker_for(key)


def cmd_find_comment(path, login, key=""):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for value in json_values(text):
        for comment in value if isinstance(value, list) else [value]:
            if is_sticky_comment(comment, login, key):
                print(comment["id"])
                return


def cut_at_lines(text, limit, note):
    """`text` cut to `limit` characters at a line end, never inside a line (a cut inside a code span would
    make the data in it live Markdown), with an open code fence and open <details> closed, then `note`: as
    neuron-gate's own cut_at_lines (src/report/markdown.hpp)."""
    kept, open_details, in_fence = [], 0, False
    size = 0
    for line in text.splitlines(keepends=True):
        details = max(0, open_details + line.count("<details>") - line.count("</details>"))
        fence = (not in_fence) if line.startswith("```") else in_fence
        if size + len(line) + 1 + (4 if fence else 0) + 11 * details + len(note) > limit:
            break
        kept.append(line)
        size += len(line)
        open_details, in_fence = details, fence
    body = "".join(kept)
    if body and not body.endswith("\n"):
        body += "\n"
    return body + ("```\n" if in_fence else "") + "</details>\n" * open_details + note


def cmd_comment_body(report_md, out, note="", key=""):
    with open(report_md, encoding="utf-8", errors="replace") as f:
        report = f.read()
    # The marker leads (find-comment matches the first line only); the report's own copy is dropped.
    report = "\n".join(line for line in report.split("\n") if not is_marker_line(line)).strip("\n") + "\n"
    head = marker_for(key) + "\n" + (note.strip() + "\n\n" if note.strip() else "")
    body = head + report
    if len(body) > COMMENT_LIMIT:
        body = cut_at_lines(body, COMMENT_LIMIT,
                            "\n*[cut to GitHub's comment limit; the full report is in the job summary]*\n")
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"body": body}, f)


def cmd_get(path, keys):
    value = load_json(path)
    for key in keys.split("."):
        value = value.get(key) if isinstance(value, dict) else None
    if value is not None:
        print(value if not isinstance(value, bool) else str(value).lower())


def main(argv):
    commands = {
        "split-args": (cmd_split_args, 1, 1),
        "verdict": (lambda code, report=None: print(verdict_for(code, report)), 1, 2),
        "regressions": (cmd_regressions, 1, 1),
        "fallback-markdown": (cmd_fallback_markdown, 3, 3),
        "write-meta": (cmd_write_meta, 3, 4),
        "comment-target": (cmd_comment_target, 1, 1),
        "find-comment": (cmd_find_comment, 2, 3),
        "comment-body": (cmd_comment_body, 2, 4),
        "check-key": (lambda key: sys.exit(0 if valid_key(key) else 1), 1, 1),
        "get": (cmd_get, 2, 2),
    }
    if len(argv) < 2 or argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    function, least, most = commands[argv[1]]
    args = argv[2:]
    if not least <= len(args) <= most:
        print(f"action_json.py {argv[1]}: expected {least}..{most} arguments", file=sys.stderr)
        return 2
    function(*args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
