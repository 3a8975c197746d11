#!/usr/bin/env bash
# Runs the GitHub Action (action.yml, post-comment/action.yml) locally the way the runner would and checks
# what a workflow would see: outputs, job summary, annotations, the sticky PR comment, the step's result.
#
# Usage: test_action.sh NEURON_GATE_BINARY     (ctest: action-local-run)
#
# tests/action/mini_runner.py executes the composite action's bash steps from action.yml itself (bash
# --noprofile --norc -eo pipefail, GITHUB_OUTPUT per step, inputs/outputs expressions); the cache steps
# (uses:) are not run, the build step finds the ctest binary where a cache hit would have put it, and the
# package step is skipped (a test installs nothing). GITHUB_EVENT_PATH is a PR event fixture,
# GITHUB_OUTPUT / GITHUB_STEP_SUMMARY are temporary files, and `gh` is tests/action/gh_stub.py, first on
# PATH: it logs every call and serves the PR's comments from a state file.
# Prints "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail

if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: test_action.sh NEURON_GATE_BINARY (got '${1:-}')" >&2
  echo "0 passed, 1 failed"
  exit 2
fi
binary="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
examples="examples/rmsnorm-4x512" # relative to the workspace, as in a user's workflow
tmp="$(mktemp -d)"
trap '[ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT

passed=0
failed=0
check() { # check DESCRIPTION COMMAND...
  local description="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok     - $description"
  else
    failed=$((failed + 1))
    echo "FAILED - $description"
  fi
}
equals() { [ "$1" = "$2" ] || { echo "         expected '$2', got '$1'"; return 1; }; }
starts_with() { [[ "$1" == "$2"* ]] || { echo "         '$1' does not start with '$2'"; return 1; }; }
contains() { grep -qF -- "$2" "$1" || { echo "         '$2' not in $1"; return 1; }; }

for tool in python3 bash; do
  command -v "$tool" >/dev/null || { echo "$tool is required"; echo "0 passed, 1 failed"; exit 1; }
done

mkdir -p "$tmp/bin"
cp "$here/gh_stub.py" "$tmp/bin/gh"
chmod +x "$tmp/bin/gh"
export PATH="$tmp/bin:$PATH"
unset GH_TOKEN GITHUB_TOKEN GH_HOST GH_STUB_FAIL
export GITHUB_REPOSITORY="octo-org/neuron-app" GITHUB_EVENT_NAME="pull_request" GITHUB_RUN_ID="4242"
export GITHUB_SERVER_URL="https://github.com"
export GH_STUB_LOG="$tmp/gh.log" GH_STUB_STATE="$tmp/state.json" GH_STUB_PAGE_SIZE=2
pr_event="$here/event_pull_request.json"
run_event="$here/event_workflow_run.json"
head_sha="1111111111111111111111111111111111111111"

# run_action CASE ACTION_YML EVENT_JSON [--input NAME=VALUE]...: one job step using the action.
run_action() {
  local case="$1" action="$2" event="$3"
  shift 3
  local dir="$tmp/$case"
  mkdir -p "$dir/runner-temp/neuron-gate-build/src"
  ln -sf "$binary" "$dir/runner-temp/neuron-gate-build/src/neuron-gate"
  : > "$dir/output"
  : > "$dir/summary"
  : > "$GH_STUB_LOG"
  GITHUB_OUTPUT="$dir/output" GITHUB_STEP_SUMMARY="$dir/summary" GITHUB_EVENT_PATH="$event" \
    RUNNER_TEMP="$dir/runner-temp" \
    python3 "$here/mini_runner.py" "$action" --workspace "$root" \
    --skip "Install build dependencies (Debian/Ubuntu)" "$@" > "$dir/stdout" 2> "$dir/stderr"
  echo $? > "$dir/rc"
  cp "$GH_STUB_LOG" "$dir/gh.log"
}
gate() { # gate CASE EVENT BASE HEAD COMMENT FAIL_ON [more --input ...]
  local case="$1" event="$2" base="$3" head="$4" comment="$5" fail_on="$6"
  shift 6
  run_action "$case" "$root/action.yml" "$event" --input "base=$base" --input "head=$head" \
    --input "comment=$comment" --input "fail-on=$fail_on" "$@"
}
rc() { cat "$tmp/$1/rc"; }
out() { sed -n "s/^$2=//p" "$tmp/$1/output" | tail -n 1; }
annotations() { grep -c "^::$2 " "$tmp/$1/stdout"; } # annotations CASE error|warning|notice
calls() {                                              # calls CASE METHOD ENDPOINT_REGEX
  python3 - "$tmp/$1/gh.log" "$2" "$3" <<'PY'
import json, re, sys
log, method, pattern = sys.argv[1:]
print(sum(1 for line in open(log) if line.strip()
          and json.loads(line)["method"] == method and re.fullmatch(pattern, json.loads(line)["endpoint"])))
PY
}
state_comments() { # state_comments PR_KEY FIELD: prints FIELD of every comment carrying the marker line
  python3 - "$GH_STUB_STATE" "$1" "$2" <<'PY'
import json, sys
state, key, field = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
for c in state["comments"].get(key, []):
    if "<!-- neuron-gate -->" in c["body"].splitlines():
        print(c[field])
PY
}
seed_state() { # a PR with unrelated comments over two pages, one quoting the report's marker
  python3 - "$GH_STUB_STATE" "$head_sha" <<'PY'
import json, sys
noise = [{"id": 10 + i, "body": body, "html_url": "", "user": {"login": "dev", "type": "User"}}
         for i, body in enumerate(["LGTM", "> <!-- neuron-gate -->\n> quoted the bot", "rerun please"])]
json.dump({"next_id": 5000, "comments": {"octo-org/neuron-app#42": noise},
           "pulls": {"octo-org/neuron-app#42": {"head_sha": sys.argv[2]},
                     "octo-org/neuron-app#43": {"head_sha": "3" * 40}}}, open(sys.argv[1], "w"))
PY
}

echo "# regression, comment always, fail-on regression: the first run creates the comment"
seed_state
gate reg1 "$pr_event" "$examples/A" "$examples/Areg" always regression
check "A vs Areg fails the step with exit code 1" equals "$(rc reg1)" 1
check "the Apply fail-on step is what failed" contains "$tmp/reg1/stderr" "Apply fail-on: failed with exit code 1"
check "output verdict=regression" equals "$(out reg1 verdict)" regression
check "output exit-code=1" equals "$(out reg1 exit-code)" 1
check "output regressions=1 (the gating end-to-end latency)" equals "$(out reg1 regressions)" 1
check "output report-markdown is the report, with the marker" contains "$(out reg1 report-markdown)" "<!-- neuron-gate -->"
check "output report-json is the JSON report" contains "$(out reg1 report-json)" '"schema": "neuron-gate.report/1"'
check "the reports are in RUNNER_TEMP/neuron-gate-report" equals "$(out reg1 report-dir)" "$tmp/reg1/runner-temp/neuron-gate-report"
check "the job summary starts with the verdict line" equals "$(head -n 1 "$tmp/reg1/summary")" "$(head -n 1 "$(out reg1 report-markdown)")"
check "the job summary holds the whole report" contains "$tmp/reg1/summary" "### Provenance"
check "one ::error:: annotation (the gating regression)" equals "$(annotations reg1 error)" 1
check "the error names the regressed metric" contains "$tmp/reg1/stdout" "::error title=neuron-gate%3A latency regressed::latency (end-to-end): head/base 1.4"
check "10 ::warning:: annotations (12 candidates: capped)" equals "$(annotations reg1 warning)" 10
check "a ::notice:: counts what was not annotated" contains "$tmp/reg1/stdout" "0 more errors and 2 more warnings"
check "the comment list is read with --paginate" equals "$(calls reg1 GET 'repos/octo-org/neuron-app/issues/42/comments.*')" 1
check "gh was called with --paginate" contains "$tmp/reg1/gh.log" '"paginate": true'
check "one POST creates the comment" equals "$(calls reg1 POST 'repos/octo-org/neuron-app/issues/42/comments')" 1
check "no PATCH on the first run" equals "$(calls reg1 PATCH '.*')" 0
first_id="$(state_comments "octo-org/neuron-app#42" id)"
check "exactly one neuron-gate comment on the PR" equals "$(echo "$first_id" | grep -c .)" 1
check "output comment-url points at it" equals "$(out reg1 comment-url)" "https://github.com/octo-org/neuron-app/pull/42#issuecomment-$first_id"
check "the quoted marker in a reply was not taken for the sticky comment" equals "$first_id" 5000

echo "# the same pair again, fail-on never: the comment is updated, not posted twice"
gate reg2 "$pr_event" "$examples/A" "$examples/Areg" always never
check "fail-on never: the step passes" equals "$(rc reg2)" 0
check "the verdict is still regression" equals "$(out reg2 verdict)" regression
check "no second POST" equals "$(calls reg2 POST '.*')" 0
check "one PATCH of the same comment" equals "$(calls reg2 PATCH "repos/octo-org/neuron-app/issues/comments/$first_id")" 1
check "still exactly one neuron-gate comment" equals "$(state_comments "octo-org/neuron-app#42" id)" "$first_id"
check "it was updated once" equals "$(state_comments "octo-org/neuron-app#42" updated)" 1
check "the annotations are still emitted" equals "$(annotations reg2 error)" 1

echo "# pass, comment on-change"
gate pass1 "$pr_event" "$examples/A" "$examples/A2" on-change regression
check "A vs A2 passes the step" equals "$(rc pass1)" 0
check "output verdict=pass" equals "$(out pass1 verdict)" pass
check "output exit-code=0" equals "$(out pass1 exit-code)" 0
check "output regressions=0" equals "$(out pass1 regressions)" 0
check "no ::error:: annotation" equals "$(annotations pass1 error)" 0
check "at most 10 ::warning:: annotations" test "$(annotations pass1 warning)" -le 10
check "on-change: the existing comment is updated to the pass" equals "$(calls pass1 PATCH "repos/octo-org/neuron-app/issues/comments/$first_id")" 1
check "the comment now reports the pass" starts_with "$(state_comments "octo-org/neuron-app#42" body | head -n 1)" "## ✅ PASS"
sed 's/"number": 42/"number": 77/' "$pr_event" > "$tmp/event_pr77.json"
gate pass2 "$tmp/event_pr77.json" "$examples/A" "$examples/A2" on-change regression
check "on-change, pass, no earlier comment: nothing posted" equals "$(calls pass2 POST '.*')$(calls pass2 PATCH '.*')" 00
check "on-change still looked for an earlier comment" equals "$(calls pass2 GET 'repos/octo-org/neuron-app/issues/77/comments.*')" 1

echo "# not comparable"
gate nc1 "$pr_event" "$examples/A" "$examples/A_sched" never regression
check "A vs A_sched fails the step with exit code 3" equals "$(rc nc1)" 3
check "output verdict=not-comparable" equals "$(out nc1 verdict)" not-comparable
check "output exit-code=3" equals "$(out nc1 exit-code)" 3
check "the error names the differing condition" contains "$tmp/nc1/stdout" "::error title=neuron-gate%3A not comparable::condition schedule differs"
check "comment never: gh is not called" equals "$(grep -c . "$tmp/nc1/gh.log")" 0
gate nc2 "$pr_event" "$examples/A" "$examples/A_sched" never never
check "not comparable with fail-on never: the step passes" equals "$(rc nc2)" 0
gate nc3 "$pr_event" "$examples/A" "$examples/A_sched" never regression --input "args=--allow-mismatch 'schedule'"
check "args are passed to compare (--allow-mismatch schedule, quoted)" equals "$(out nc3 exit-code)" 0

echo "# usage or input error"
gate err1 "$pr_event" "$examples/A" "$examples/does-not-exist" always regression
check "a missing head profile fails the step with exit code 2" equals "$(rc err1)" 2
check "output verdict=error" equals "$(out err1 verdict)" error
check "output report-json is empty (no JSON report)" equals "$(out err1 report-json)" ""
check "the summary explains the error" contains "$tmp/err1/summary" "does-not-exist"
check "an ::error:: annotation carries neuron-gate's message" contains "$tmp/err1/stdout" "::error title=neuron-gate%3A exit code 2 (error)::"
check "the sticky comment reports the error (PATCH)" equals "$(calls err1 PATCH "repos/octo-org/neuron-app/issues/comments/$first_id")" 1
gate err2 "$pr_event" "$examples/A" "$examples/does-not-exist" never never
check "input error with fail-on never: the step passes" equals "$(rc err2)" 0
gate err3 "$pr_event" "$examples/A" "$examples/A2" sometimes never
check "a bad comment input fails the step even with fail-on never" equals "$(rc err3)" 2
check "and says which input" contains "$tmp/err3/stdout" "input comment must be"

echo "# no comment possible: read-only token, or not a pull request"
GH_STUB_FAIL=1 gate ro1 "$pr_event" "$examples/A" "$examples/A2" always regression
check "a 403 on the comment does not fail a passing step" equals "$(rc ro1)" 0
check "it is a warning that points at artifact-only" contains "$tmp/ro1/stdout" "::warning title=neuron-gate comment::"
echo '{"ref": "refs/heads/main", "after": "'"$head_sha"'"}' > "$tmp/event_push.json"
gate push1 "$tmp/event_push.json" "$examples/A" "$examples/A2" always regression
check "push event: the step passes" equals "$(rc push1)" 0
check "push event: gh is not called" equals "$(grep -c . "$tmp/push1/gh.log")" 0

echo "# fork-safe: artifact-only, then post-comment in a workflow_run job"
gate fork1 "$pr_event" "$examples/A" "$examples/Areg" artifact-only regression --input "report-dir=$tmp/artifact"
check "artifact-only: the regression still fails the step" equals "$(rc fork1)" 1
check "artifact-only: gh is not called" equals "$(grep -c . "$tmp/fork1/gh.log")" 0
check "output report-dir is the requested folder" equals "$(out fork1 report-dir)" "$tmp/artifact"
check "the folder holds report.md" contains "$tmp/artifact/report.md" "<!-- neuron-gate -->"
check "the folder holds comment.json with the PR number" contains "$tmp/artifact/comment.json" '"pr_number": 42'
check "comment.json records the verdict" contains "$tmp/artifact/comment.json" '"verdict": "regression"'
rm -f "$GH_STUB_STATE"
seed_state
cp -r "$tmp/artifact" "$tmp/downloaded" # what actions/download-artifact gives the second workflow
run_action post1 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
check "post-comment succeeds" equals "$(rc post1)" 0
check "post-comment checks the PR's head against the run's head_sha" equals "$(calls post1 GET 'repos/octo-org/neuron-app/pulls/42')" 1
check "post-comment creates the comment (POST)" equals "$(calls post1 POST 'repos/octo-org/neuron-app/issues/42/comments')" 1
fork_id="$(state_comments "octo-org/neuron-app#42" id)"
check "post-comment output comment-url" equals "$(out post1 comment-url)" "https://github.com/octo-org/neuron-app/pull/42#issuecomment-$fork_id"
run_action post2 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
check "a second post-comment updates it (PATCH, no POST)" equals "$(calls post2 PATCH "repos/octo-org/neuron-app/issues/comments/$fork_id")$(calls post2 POST '.*')" 10
check "still one neuron-gate comment" equals "$(state_comments "octo-org/neuron-app#42" id)" "$fork_id"
sed 's/"pr_number": 42/"pr_number": 43/' "$tmp/artifact/comment.json" > "$tmp/downloaded/comment.json"
run_action post3 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
check "an artifact naming another PR (head differs): no comment, the job passes" equals "$(rc post3)" 0
check "and a warning says why" contains "$tmp/post3/stdout" "::warning title=neuron-gate comment::pull request #43 has head 3333"
check "and nothing is posted" equals "$(calls post3 POST '.*')$(calls post3 PATCH '.*')" 00
sed 's/"pr_number": 42/"pr_number": "42 --method DELETE"/' "$tmp/artifact/comment.json" > "$tmp/downloaded/comment.json"
run_action post4 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
check "a PR number that is not an integer is refused" test "$(rc post4)" -ne 0
check "and gh is not called" equals "$(grep -c . "$tmp/post4/gh.log")" 0

echo "# annotations: at most 10 of each kind, escaped"
python3 - "$tmp/many.json" <<'PY'
import json, sys
metric = lambda name, verdict, gating: {"class": "device", "name": name, "unit": "us", "verdict": verdict,
    "gating": gating, "reason": "r", "ratio": 1.5, "ratio_ci95": [1.4, 1.6], "base": {"median": 10.0},
    "head": {"median": 15.0}, "waiver": None}
metrics = [metric(f"op{i}", "REGRESSED", True) for i in range(25)]
metrics += [metric(f"s{i}", "STRUCTURAL", False) for i in range(15)] + [metric("x", "INSUFFICIENT", True)]
metrics.append(metric("aten::odd,name%\nline", "REGRESSED", True))
json.dump({"schema": "neuron-gate.report/1", "conditions": [], "metrics": metrics}, open(sys.argv[1], "w"))
PY
bash "$root/scripts/action/annotate.sh" "$tmp/many.json" 1 > "$tmp/many.out"
check "26 regressions: 10 ::error:: annotations" equals "$(grep -c '^::error ' "$tmp/many.out")" 10
check "16 warnings: 10 ::warning:: annotations" equals "$(grep -c '^::warning ' "$tmp/many.out")" 10
check "one ::notice:: with what was left out" contains "$tmp/many.out" "16 more errors and 6 more warnings"
check "every line is a workflow command" equals "$(grep -vc '^::' "$tmp/many.out")" 0
bash "$root/scripts/action/annotate.sh" "$tmp/many.json" 1 /dev/null 30 > "$tmp/many30.out"
check "names are escaped (, : % newline)" contains "$tmp/many30.out" "title=neuron-gate%3A aten%3A%3Aodd%2Cname%25%0Aline regressed::aten::odd,name%25%0Aline (device time)"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
