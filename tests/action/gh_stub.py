#!/usr/bin/env python3
"""A recording stand-in for the GitHub CLI (`gh api` only), put first on PATH as `gh` by test_action.sh.

Every call is appended to $GH_STUB_LOG as one JSON line: {"argv", "method", "endpoint", "paginate", "body"}.
The fake GitHub lives in $GH_STUB_STATE (JSON):
  {"next_id": 5000,
   "comments": {"owner/repo#42": [{"id", "body", "html_url", "user": {"login", "type"}}, ...]},
   "pulls": {"owner/repo#42": {"head_sha": "...", "head_repo": "fork-owner/repo"}}}
Served: GET repos/O/R/issues/N/comments (pages of $GH_STUB_PAGE_SIZE, default 2; with --paginate every page,
printed back to back as separate arrays, the harder case for a parser), POST repos/O/R/issues/N/comments,
PATCH repos/O/R/issues/comments/ID, GET repos/O/R/pulls/N, GET user. The token's user is $GH_STUB_USER: GET user
answers {"login": $GH_STUB_USER}, or HTTP 403 when it is unset (as for the workflow's GITHUB_TOKEN, whose
comments are by github-actions[bot]); POSTed comments are by that user. Like gh, it refuses to run without GH_TOKEN.
GH_STUB_FAIL=1 answers every call with HTTP 403, as GitHub does to a read-only token.
"""

import json
import os
import re
import sys


def fail(message, code=1):
    print(message, file=sys.stderr)
    sys.exit(code)


def main(argv):
    if len(argv) < 2 or argv[1] != "api":
        fail(f"gh stub: only 'gh api' is served, not {argv[1:]}")
    method, endpoint, paginate, input_file = "GET", None, False, None
    args = argv[2:]
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--paginate":
            paginate = True
        elif arg in ("-X", "--method"):
            method, i = args[i + 1].upper(), i + 1
        elif arg == "--input":
            input_file, i = args[i + 1], i + 1
        elif arg in ("-H", "--header"):
            i += 1
        elif arg.startswith("-"):
            fail(f"gh stub: unsupported flag {arg}")
        elif endpoint is None:
            endpoint = arg
        else:
            fail(f"gh stub: unexpected argument {arg}")
        i += 1
    if endpoint is None:
        fail("gh stub: no endpoint")

    body = None
    if input_file is not None:
        with open(input_file, encoding="utf-8") as f:
            body = json.load(f)
    with open(os.environ["GH_STUB_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"argv": argv[1:], "method": method, "endpoint": endpoint, "paginate": paginate,
                            "body": body}) + "\n")

    if not os.environ.get("GH_TOKEN"):
        fail("gh: To use GitHub CLI in a GitHub Actions workflow, set the GH_TOKEN environment variable.", 4)
    if os.environ.get("GH_STUB_FAIL") == "1":
        fail("gh: Resource not accessible by integration (HTTP 403)")

    state_path = os.environ["GH_STUB_STATE"]
    state = {"next_id": 5000, "comments": {}, "pulls": {}}
    if os.path.exists(state_path):
        with open(state_path, encoding="utf-8") as f:
            state.update(json.load(f))

    path = endpoint.split("?", 1)[0]
    out = None
    me = os.environ.get("GH_STUB_USER") or ""
    if path == "user":
        if method != "GET" or not me:
            fail("gh: Resource not accessible by integration (HTTP 403)")
        print(json.dumps({"login": me, "type": "User"}))
        return 0
    if m := re.fullmatch(r"repos/([^/]+/[^/]+)/issues/(\d+)/comments", path):
        key = f"{m.group(1)}#{m.group(2)}"
        comments = state["comments"].setdefault(key, [])
        if method == "GET":
            size = int(os.environ.get("GH_STUB_PAGE_SIZE", "2"))
            pages = [comments[i:i + size] for i in range(0, len(comments), size)] or [[]]
            sys.stdout.write("".join(json.dumps(page) for page in (pages if paginate else pages[:1])))
            return 0
        if method == "POST":
            if not isinstance(body, dict) or not isinstance(body.get("body"), str):
                fail("gh: Invalid request (HTTP 422): body is required")
            new_id = state["next_id"]
            state["next_id"] += 1
            out = {"id": new_id, "body": body["body"], "updated": 0,
                   "html_url": f"https://github.com/{m.group(1)}/pull/{m.group(2)}#issuecomment-{new_id}",
                   "user": {"login": me or "github-actions[bot]", "type": "User" if me else "Bot"}}
            comments.append(out)
    elif m := re.fullmatch(r"repos/([^/]+/[^/]+)/issues/comments/(\d+)", path):
        if method != "PATCH":
            fail(f"gh stub: {method} {path} is not served")
        for key, comments in state["comments"].items():
            if not key.startswith(m.group(1) + "#"):
                continue
            for comment in comments:
                if comment["id"] == int(m.group(2)):
                    comment["body"] = body["body"]
                    comment["updated"] = comment.get("updated", 0) + 1
                    out = comment
        if out is None:
            fail("gh: Not Found (HTTP 404)")
    elif m := re.fullmatch(r"repos/([^/]+/[^/]+)/pulls/(\d+)", path):
        pull = state["pulls"].get(f"{m.group(1)}#{m.group(2)}")
        if method != "GET" or pull is None:
            fail("gh: Not Found (HTTP 404)")
        head_repo = {"full_name": pull["head_repo"]} if pull.get("head_repo") else None
        print(json.dumps({"number": int(m.group(2)), "head": {"sha": pull["head_sha"], "repo": head_repo}}))
        return 0
    else:
        fail(f"gh: Not Found (HTTP 404) {method} {path}")

    with open(state_path, "w", encoding="utf-8") as f:
        json.dump(state, f, indent=1)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
