#!/usr/bin/env bash
# Runs the GitHub Action (action.yml, post-comment/action.yml) locally the way the runner would and checks
# what a workflow would see: outputs, job summary, annotations, the sticky PR comment, the step's result.
#
# Usage: test_action.sh NEURON_GATE_BINARY     (ctest: action-local-run)
#
# tests/action/mini_runner.py executes the composite action's bash steps from action.yml itself (bash
# --noprofile --norc -eo pipefail, GITHUB_OUTPUT per step, inputs/outputs expressions); the cache steps
# (uses:) are not run, the build step finds the ctest binary where a cache hit would have put it (with the
# cache key that build.sh computes), and the package step is skipped (a test installs nothing).
# The release download (scripts/action/release.sh) is run against a stub release server on 127.0.0.1 (a
# good archive, a bad checksum, a missing checksum, no release) with the action laid out as the runner
# lays out a downloaded one (.../_actions/OWNER/REPO/REF, here a symlink to this checkout); the source
# build fallback runs scripts/action/build.sh with a stub cmake first on PATH (the real build takes
# minutes; NG_TEST_REAL_BUILD=1 runs it instead and prints how long it took). GITHUB_EVENT_PATH is a PR event fixture,
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

cache_key="$(bash "$root/scripts/action/build.sh" key "$root" | sed -n 's/^key=//p')"

# run_action CASE ACTION_YML EVENT_JSON [--input NAME=VALUE | mini_runner option]...: one job step using the
# action. The build folder is what a cache hit restores: the binary and the key it was built for
# ($CACHED_KEY when set, else the current key).
run_action() {
  local case="$1" action="$2" event="$3"
  shift 3
  local dir="$tmp/$case"
  mkdir -p "$dir/runner-temp/neuron-gate-build/src"
  ln -sf "$binary" "$dir/runner-temp/neuron-gate-build/src/neuron-gate"
  printf '%s\n' "${CACHED_KEY:-$cache_key}" > "$dir/runner-temp/neuron-gate-build/.neuron-gate-key"
  : > "$dir/output"
  : > "$dir/summary"
  : > "$GH_STUB_LOG"
  GITHUB_OUTPUT="$dir/output" GITHUB_STEP_SUMMARY="$dir/summary" GITHUB_EVENT_PATH="$event" \
    RUNNER_TEMP="$dir/runner-temp" \
    python3 "$here/mini_runner.py" "$action" --workspace "${WORKSPACE:-$root}" \
    --skip "Install build dependencies (Debian/Ubuntu)" "$@" > "$dir/stdout" 2> "$dir/stderr"
  echo $? > "$dir/rc"
  cp "$GH_STUB_LOG" "$dir/gh.log"
}
gate() { # gate CASE EVENT BASE HEAD COMMENT FAIL_ON [more --input ...]
  local case="$1" event="$2" base="$3" head="$4" comment="$5" fail_on="$6"
  shift 6
  run_action "$case" "${ACTION_DIR:-$root}/action.yml" "$event" --input "base=$base" --input "head=$head" \
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
state_comments() { # state_comments PR_KEY FIELD [LOGIN]: FIELD of every comment by LOGIN (github-actions[bot])
                   # whose first line is the marker
  python3 - "$GH_STUB_STATE" "$1" "$2" "${3:-github-actions[bot]}" <<'PY'
import json, sys
state, key, field, login = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], sys.argv[4]
for c in state["comments"].get(key, []):
    if c["user"]["login"] == login and c["body"].split("\n")[0] == "<!-- neuron-gate -->":
        print(c[field])
PY
}
decoy_body=$'<!-- neuron-gate -->\n## ✅ PASS: nothing changed (posted by the PR author)'
seed_state() { # a PR with unrelated comments over two pages, one quoting the report's marker, and a decoy: a
               # comment by the PR author whose first line is the marker
  python3 - "$GH_STUB_STATE" "$head_sha" "$decoy_body" <<'PY'
import json, sys
noise = [{"id": 10 + i, "body": body, "html_url": "", "user": {"login": "dev", "type": "User"}}
         for i, body in enumerate(["LGTM", "> <!-- neuron-gate -->\n> quoted the bot", "rerun please", sys.argv[3]])]
json.dump({"next_id": 5000, "comments": {"octo-org/neuron-app#42": noise},
           "pulls": {"octo-org/neuron-app#42": {"head_sha": sys.argv[2], "head_repo": "a-contributor/neuron-app"},
                     "octo-org/neuron-app#43": {"head_sha": "3" * 40, "head_repo": "a-contributor/neuron-app"}}},
          open(sys.argv[1], "w"))
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
check "output report-json is the JSON report" contains "$(out reg1 report-json)" '"schema": "neuron-gate.report/2"'
check "output report-html is the HTML report, in report-dir" equals "$(out reg1 report-html)" "$tmp/reg1/runner-temp/neuron-gate-report/report.html"
check "the HTML report opens on the verdict" contains "$(out reg1 report-html)" "REGRESSION"
check "the reports are in RUNNER_TEMP/neuron-gate-report" equals "$(out reg1 report-dir)" "$tmp/reg1/runner-temp/neuron-gate-report"
check "the job summary starts with the verdict line" equals "$(head -n 1 "$tmp/reg1/summary")" "$(head -n 1 "$(out reg1 report-markdown)")"
check "the job summary holds the whole report" contains "$tmp/reg1/summary" "### Provenance"
check "one ::error:: annotation (the gating regression)" equals "$(annotations reg1 error)" 1
check "the error names the regressed metric and its change" contains "$tmp/reg1/stdout" "::error title=neuron-gate%3A latency regressed::latency (end-to-end): +38.4%25 (90%25 CI"
# Warnings only for non-gating regressions (issue 16 item 3): step time, all ops, replaced ops and
# rmsnorm_step regress under the profiler too; the 10 structural and 6 undecided metrics are left to the report.
check "four ::warning:: annotations: the non-gating regressions, not the structural or undecided metrics" equals "$(annotations reg1 warning)" 4
check "a warning names a non-gating regression" contains "$tmp/reg1/stdout" "::warning title=neuron-gate%3A replaced ops regressed (not gating)::"
check "no ::notice:: (nothing left out)" equals "$(annotations reg1 notice)" 0
check "the comment list is read with --paginate" equals "$(calls reg1 GET 'repos/octo-org/neuron-app/issues/42/comments.*')" 1
check "gh was called with --paginate" contains "$tmp/reg1/gh.log" '"paginate": true'
check "one POST creates the comment" equals "$(calls reg1 POST 'repos/octo-org/neuron-app/issues/42/comments')" 1
check "no PATCH on the first run" equals "$(calls reg1 PATCH '.*')" 0
first_id="$(state_comments "octo-org/neuron-app#42" id)"
check "exactly one neuron-gate comment on the PR" equals "$(echo "$first_id" | grep -c .)" 1
check "output comment-url points at it" equals "$(out reg1 comment-url)" "https://github.com/octo-org/neuron-app/pull/42#issuecomment-$first_id"
check "the quoted marker in a reply was not taken for the sticky comment" equals "$first_id" 5000
check "the comment's first line is the marker" equals "$(state_comments "octo-org/neuron-app#42" body | head -n 1)" "<!-- neuron-gate -->"
decoy() { # decoy FIELD: the PR author's marker-carrying comment (id 13)
  python3 -c 'import json,sys; print([c for c in json.load(open(sys.argv[1]))["comments"]["octo-org/neuron-app#42"] if c["id"] == 13][0][sys.argv[2]])' "$GH_STUB_STATE" "$1"
}
check "another user's comment with the marker as first line is not edited (no PATCH of id 13)" equals "$(calls reg1 PATCH '.*/comments/13')" 0
check "and its text is untouched" equals "$(decoy body)" "$decoy_body"

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
check "the comment now reports the pass" starts_with "$(state_comments "octo-org/neuron-app#42" body | sed -n 2p)" "## ✅ PASS"
check "the decoy is still untouched after three runs" equals "$(decoy body)$(decoy id)" "${decoy_body}13"
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

echo "# no decision: one trace per side"
one_base="$examples/A/run-10/vm_4489.1796188477455.pt.trace.json"
one_head="$examples/Areg/run-10/vm_4574.1796188479450.pt.trace.json"
gate nd1 "$pr_event" "$one_base" "$one_head" never regression
check "one trace per side: exit code 0, the step passes" equals "$(rc nd1)" 0
check "output verdict=no-decision (from report.json; exit code 0 alone would say pass)" equals "$(out nd1 verdict)" no-decision
check "a ::warning:: says there is no decision" contains "$tmp/nd1/stdout" "::warning title=neuron-gate%3A no decision::⚠️ NO DECISION"
check "the summary headline is NO DECISION, not a pass" starts_with "$(head -n 1 "$tmp/nd1/summary")" "## ⚠️ NO DECISION"
gate nd2 "$pr_event" "$one_base" "$one_head" never regression --input "args=--strict"
check "no decision under --strict: exit code 4 fails the step" equals "$(rc nd2)" 4
check "and the verdict is still no-decision" equals "$(out nd2 verdict)" no-decision

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

echo "# a token that may read its user (GET user): comments are matched by that login"
GH_STUB_USER=neuron-bot gate pat1 "$tmp/event_pr77.json" "$examples/A" "$examples/Areg" always never
check "PAT user: the github-actions[bot] comments are not taken for its own: one POST" equals "$(calls pat1 POST '.*')" 1
check "PAT user: it asked who it is" equals "$(calls pat1 GET 'user')" 1
pat_id="$(state_comments "octo-org/neuron-app#77" id neuron-bot)"
GH_STUB_USER=neuron-bot gate pat2 "$tmp/event_pr77.json" "$examples/A" "$examples/Areg" always never
check "PAT user: the second run updates its own comment" equals "$(calls pat2 PATCH "repos/octo-org/neuron-app/issues/comments/$pat_id")$(calls pat2 POST '.*')" 10

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
state_comments "octo-org/neuron-app#42" body > "$tmp/post1/body.md"
# The run named is the event's (987654321), not the artifact's comment.json (run_id 4242), with its conclusion.
check "the fork comment says it was posted from a workflow_run artifact, of the event's run" contains "$tmp/post1/body.md" 'Posted by a `workflow_run` job from the report artifact of the pull request'"'"'s workflow run 987654321 (commit `111111111111`), which concluded `failure`'
check "the fork comment says the report and conclusion are the pull request's own, not recomputed" contains "$tmp/post1/body.md" 'this report and that conclusion are the pull request'"'"'s to write: nothing here recomputed them'
check "another user's marker comment is not taken in the fork flow either" equals "$(decoy body)" "$decoy_body"
check "the fork comment's first line is still the marker" equals "$(state_comments "octo-org/neuron-app#42" body | head -n 1)" "<!-- neuron-gate -->"
check "post-comment output comment-url" equals "$(out post1 comment-url)" "https://github.com/octo-org/neuron-app/pull/42#issuecomment-$fork_id"
sed 's/"conclusion": "failure"/"conclusion": "success"/' "$run_event" > "$tmp/event_run_success.json"
run_action post2 "$root/post-comment/action.yml" "$tmp/event_run_success.json" --input "report-dir=$tmp/downloaded"
check "a second post-comment updates it (PATCH, no POST)" equals "$(calls post2 PATCH "repos/octo-org/neuron-app/issues/comments/$fork_id")$(calls post2 POST '.*')" 10
check "a run that succeeded: no warning in the comment" equals "$(state_comments "octo-org/neuron-app#42" body | grep -c 'WARNING')" 0
check "still one neuron-gate comment" equals "$(state_comments "octo-org/neuron-app#42" id)" "$fork_id"
sed 's/"pr_number": 42/"pr_number": 43/' "$tmp/artifact/comment.json" > "$tmp/downloaded/comment.json"
run_action post3 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
check "an artifact naming another PR (head differs): no comment, the job passes" equals "$(rc post3)" 0
check "and a warning says why" contains "$tmp/post3/stdout" "::warning title=neuron-gate comment::pull request #43 has head 3333"
check "and nothing is posted" equals "$(calls post3 POST '.*')$(calls post3 PATCH '.*')" 00
# The same commit pushed to another fork and run there: its artifact names PR #42, whose head is that commit
# but in a-contributor's fork; and an event naming no head repository. Neither posts.
cp "$tmp/artifact/comment.json" "$tmp/downloaded/comment.json"
sed 's|"full_name": "a-contributor/neuron-app"|"full_name": "mallory/neuron-app"|' "$run_event" > "$tmp/event_other_fork.json"
run_action post3b "$root/post-comment/action.yml" "$tmp/event_other_fork.json" --input "report-dir=$tmp/downloaded"
check "a run of another fork with the PR's head commit: no comment, a warning naming both repositories" equals \
  "$(rc post3b)/$(calls post3b POST '.*')$(calls post3b PATCH '.*')/$(grep -c 'pull request #42 comes from a-contributor/neuron-app, not mallory/neuron-app' "$tmp/post3b/stdout")" 0/00/1
grep -v '"head_repository"' "$run_event" > "$tmp/event_no_repo.json"
run_action post3c "$root/post-comment/action.yml" "$tmp/event_no_repo.json" --input "report-dir=$tmp/downloaded"
check "an event without a head repository: no comment" equals "$(rc post3c)/$(calls post3c POST '.*')$(calls post3c PATCH '.*')" 0/00
sed 's/"pr_number": 42/"pr_number": "42 --method DELETE"/' "$tmp/artifact/comment.json" > "$tmp/downloaded/comment.json"
run_action post4 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
check "a PR number that is not an integer is refused" test "$(rc post4)" -ne 0
check "and gh is not called" equals "$(grep -c . "$tmp/post4/gh.log")" 0
# The trusted job renders the comment itself (neuron-gate render of report.json); the artifact's Markdown
# is never posted, and report.json's strings are data.
rm -rf "$tmp/downloaded" && cp -r "$tmp/artifact" "$tmp/downloaded"
printf '## ✅ PASS\n@everyone ![x](https://evil.example/x.png)\n' > "$tmp/downloaded/report.md"
python3 - "$tmp/downloaded/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
report["interpretations"].append("@octocat see [this](https://evil.example) <img src=x> :rocket: #12")
json.dump(report, open(sys.argv[1], "w"))
PY
run_action post5 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
state_comments "octo-org/neuron-app#42" body > "$tmp/post5/body.md"
check "fork flow: the comment is neuron-gate's render of report.json (the regression headline)" \
  contains "$tmp/post5/body.md" "## ❌ REGRESSION: \`latency\` +38.4%"
check "fork flow: the artifact's own report.md is not posted" bash -c "! grep -q 'everyone' '$tmp/post5/body.md'"
check "fork flow: report.json's text is escaped (no link, mention or image)" bash -c \
  "grep -qF 'see \\[this\\](https:' '$tmp/post5/body.md' && grep -qF '&lt;img src=x&gt;' '$tmp/post5/body.md' && ! grep -q '@octocat' '$tmp/post5/body.md'"
rm "$tmp/downloaded/report.json"
run_action post6 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
state_comments "octo-org/neuron-app#42" body > "$tmp/post6/body.md"
check "fork flow without report.json: a fixed note, none of the artifact's Markdown" equals \
  "$(rc post6)/$(grep -c 'neuron-gate wrote no report in the pull request.s workflow run (exit code 1)' "$tmp/post6/body.md")/$(grep -c everyone "$tmp/post6/body.md")" 0/1/0
printf '{"schema": "neuron-gate.report/2", "outcome": "PASS"}' > "$tmp/downloaded/report.json"
run_action post7 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded"
check "fork flow with a report.json that does not read: the job fails, nothing posted" equals \
  "$(rc post7)/$(calls post7 POST '.*')$(calls post7 PATCH '.*')" 1/00
check "and the ::error:: says so" contains "$tmp/post7/stdout" "::error title=neuron-gate comment::the artifact's report.json does not read"
# A pass report (a real one, A vs A2) in the artifact of a run that failed: the artifact is the pull
# request's to write, so the comment must not read as a plain pass; the run's conclusion (the event's) leads.
# With on-change and no comment yet, it is still posted: the run's failure is a change whatever the artifact says.
rm -rf "$tmp/downloaded" && cp -r "$(out pass1 report-dir)" "$tmp/downloaded"
rm -f "$GH_STUB_STATE"
seed_state
run_action post8 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/downloaded" --input comment=on-change
state_comments "octo-org/neuron-app#42" body > "$tmp/post8/body.md"
check "fork flow, on-change: a pass report from a run that failed is posted, under a warning naming the conclusion" equals \
  "$(rc post8)/$(sed -n 2,3p "$tmp/post8/body.md" | grep -c -e '^> \[!WARNING\]$' -e 'workflow run 987654321 concluded `failure`')/$(grep -c '^## ✅ PASS' "$tmp/post8/body.md")" 0/2/1
: > "$GH_STUB_LOG"
status=0
bash "$root/scripts/action/comment.sh" --report-dir "$tmp/downloaded" --render "" > /dev/null 2>&1 || status=$?
check "comment.sh --render with no binary: exit 2 before any API call (never the artifact's report.md)" \
  equals "$status/$(grep -c . "$GH_STUB_LOG")" 2/0
# The comment is cut to GitHub's limit at a line end, never inside a code span whose data would turn live.
python3 - "$root/scripts/action/action_json.py" "$tmp/cut.json" <<'PY'
import json, sys
report = "## h\n<details><summary>x</summary>\n\n| a |\n|---|\n| `" + "x" * 66000 + " [l](https://evil.example) @octocat `|\n</details>\n"
open(sys.argv[2] + ".md", "w").write(report)
PY
python3 "$root/scripts/action/action_json.py" comment-body "$tmp/cut.json.md" "$tmp/cut.json" "" "" > /dev/null
check "comment-body cuts at a line end: no half code span, <details> closed" python3 -c "
import json, sys
body = json.load(open(sys.argv[1]))['body']
sys.exit(0 if 'evil.example' not in body and body.count('<details>') == body.count('</details>') and len(body) <= 65536 else 1)" "$tmp/cut.json"

echo "# rules a pull request cannot loosen: the rules file is read at the base commit (rules-ref)"
ws="$tmp/ws" # the workspace of a pull_request job: the repository checked out at the PR's head
mkdir -p "$ws/ci"
git -C "$ws" init -q -b main
printf '%s\n' '{"schema": "neuron-gate.rules/1", "metrics": {"end_to_end": {"threshold": 0.05}}}' > "$ws/ci/rules.json"
git -C "$ws" add ci/rules.json
git -C "$ws" -c user.name=t -c user.email=t@t commit -qm base
base_commit="$(git -C "$ws" rev-parse HEAD)"
# The PR's own edit: a 5000% threshold would let any regression through.
printf '%s\n' '{"schema": "neuron-gate.rules/1", "metrics": {"end_to_end": {"threshold": 50}, "device": {"threshold": 50}, "self_cpu": {"threshold": 50}}}' > "$ws/ci/rules.json"
git -C "$ws" -c user.name=t -c user.email=t@t commit -qam "loosen the gate"
sed "s/2222222222222222222222222222222222222222/$base_commit/" "$pr_event" > "$tmp/event_pr_base.json"
rules_gate() { # rules_gate CASE EVENT [--input ...]: A vs Areg with rules ci/rules.json in $ws
  local case="$1" event="$2"
  shift 2
  WORKSPACE="$ws" run_action "$case" "$root/action.yml" "$event" --input "base=$root/$examples/A" \
    --input "head=$root/$examples/Areg" --input comment=never --input fail-on=regression --input rules=ci/rules.json "$@"
}
rules_gate rr1 "$tmp/event_pr_base.json" --input rules-ref=
check "rules-ref empty: the PR's own loosened rules let the regression pass (what rules-ref prevents)" equals "$(rc rr1)$(out rr1 verdict)" 0pass
rules_gate rr2 "$tmp/event_pr_base.json"
check "rules-ref default (the event's base commit): the PR-side rules change has no effect, regression" equals "$(rc rr2)$(out rr2 verdict)" 1regression
check "the report's Provenance names the commit the rules came from" contains "$(out rr2 report-markdown)" "from ci/rules.json at commit $base_commit"
check "the JSON report too (rules.from)" contains "$(out rr2 report-json)" "\"from\": \"ci/rules.json at commit $base_commit\""
check "a notice says the PR's rules differ and were not used" contains "$tmp/rr2/stdout" "::notice title=neuron-gate rules::ci/rules.json differs from its version at $base_commit"
git -C "$ws" mv ci/rules.json ci/gate-rules.json
git -C "$ws" -c user.name=t -c user.email=t@t commit -qm "new rules file"
rules_gate rr3 "$tmp/event_pr_base.json" --input rules=ci/gate-rules.json
check "a rules file the base does not have: the compiled-in rules, regression" equals "$(rc rr3)$(out rr3 verdict)" 1regression
check "with a warning" contains "$tmp/rr3/stdout" "::warning title=neuron-gate rules::ci/gate-rules.json does not exist at $base_commit"
# The loosened file named in args instead of input rules: refused while rules-ref is set, in either form.
for rules_arg in "--rules ci/gate-rules.json" "--rules=ci/gate-rules.json" "--rules-from 'the base commit'"; do
  WORKSPACE="$ws" run_action rr-args "$root/action.yml" "$tmp/event_pr_base.json" --input "base=$root/$examples/A" \
    --input "head=$root/$examples/Areg" --input comment=never --input fail-on=never --input "args=$rules_arg"
  check "args '$rules_arg' under rules-ref: a configuration error (exit 2), not the checkout's rules" equals \
    "$(rc rr-args)$(out rr-args verdict)$(grep -c 'must not hold --rules' "$tmp/rr-args/stdout")" 2error1
done
WORKSPACE="$ws" run_action rr-args2 "$root/action.yml" "$tmp/event_pr_base.json" --input "base=$root/$examples/A" \
  --input "head=$root/$examples/Areg" --input comment=never --input fail-on=regression \
  --input "args=--rules ci/gate-rules.json" --input rules-ref=
check "args --rules with rules-ref empty (a trusted event): used as given" equals "$(rc rr-args2)$(out rr-args2 verdict)" 0pass
rules_gate rr4 "$tmp/event_pr_base.json" --input "rules-ref=--upload-pack=evil"
check "a rules-ref that is not a ref is a configuration error (exit 2)" equals "$(rc rr4)" 2

echo "# a stored baseline as the base input: git:REF:@merge-base, read from the workspace's repository"
# Saved in a checkout of the base commit, as the default branch's workflow does: the digest records it.
git -C "$ws" checkout -q "$base_commit"
"$binary" baseline save "$root/$examples/A" --ref refs/neuron-gate/baselines/ex --repo "$ws" > "$tmp/save.log" 2>&1
git -C "$ws" checkout -q main
check "baseline save into the workspace's repository" contains "$tmp/save.log" "as the baseline of commit $base_commit"
# The PR stores a digest of its own (regressed) profile for its head commit: never the baseline, since the
# action walks the base commit's first parents (--base-commit, from pull_request.base.sha).
"$binary" baseline save "$root/$examples/Areg" --ref refs/neuron-gate/baselines/ex --repo "$ws" > "$tmp/save-pr.log" 2>&1
stored_gate() { # stored_gate CASE HEAD: the stored baseline of A against HEAD (a folder of examples)
  WORKSPACE="$ws" run_action "$1" "$root/action.yml" "$tmp/event_pr_base.json" \
    --input "base=git:refs/neuron-gate/baselines/ex:@merge-base" --input "head=$root/$examples/$2" \
    --input comment=never --input fail-on=regression --input rules-ref=
}
stored_gate sb1 Areg
check "stored baseline vs Areg: regression (exit 1)" equals "$(rc sb1)$(out sb1 verdict)" 1regression
check "the report's Provenance names the stored baseline and its commit" contains "$(out sb1 report-markdown)" \
  "base is the digest stored for commit \`${base_commit:0:12}\` in \`refs/neuron-gate/baselines/ex\`"
check "the walk started at the PR's base commit, along first parents" contains "$(out sb1 report-markdown)" \
  "nearest the pull request's base commit \`${base_commit:0:12}\`, that commit itself along first parents"
stored_gate sb2 A2
check "stored baseline vs A2: pass (exit 0)" equals "$(rc sb2)$(out sb2 verdict)" 0pass
WORKSPACE="$ws" run_action sb3 "$root/action.yml" "$tmp/event_pr_base.json" \
  --input "base=git:refs/neuron-gate/baselines/ex:@merge-base" --input "head=$root/$examples/A2" \
  --input comment=never --input fail-on=regression --input rules-ref= --input base-commit=
check "a stored baseline without a base commit: a configuration error (exit 2)" equals "$(rc sb3)$(out sb3 verdict)" 2error
check "which says why" contains "$tmp/sb3/stdout" "needs input base-commit"
# Every spelling neuron-gate reads as @merge-base (a trailing "/", a leading "./"): the base commit is
# required and passed, so the digest the PR stored for its own head (Areg) is never its baseline.
for spelling in "@merge-base/" "./@merge-base"; do
  case_name="sb-$(printf '%s' "$spelling" | tr -c 'a-z' '_')"
  WORKSPACE="$ws" run_action "$case_name" "$root/action.yml" "$tmp/event_pr_base.json" \
    --input "base=git:refs/neuron-gate/baselines/ex:$spelling" --input "head=$root/$examples/Areg" \
    --input comment=never --input fail-on=regression --input rules-ref=
  check "stored baseline spelled :$spelling vs Areg: the base commit's digest, regression (exit 1)" equals \
    "$(rc "$case_name")$(out "$case_name" verdict)" 1regression
  WORKSPACE="$ws" run_action "$case_name-nobase" "$root/action.yml" "$tmp/event_pr_base.json" \
    --input "base=git:refs/neuron-gate/baselines/ex:$spelling" --input "head=$root/$examples/Areg" \
    --input comment=never --input fail-on=regression --input rules-ref= --input base-commit=
  check "stored baseline spelled :$spelling without a base commit: a configuration error (exit 2)" equals \
    "$(rc "$case_name-nobase")$(out "$case_name-nobase" verdict)" 2error
done

echo "# the release binary: the one the action's committed release-pin names, checksum verified (stub release on 127.0.0.1)"
arch="$(uname -m)"
asset="neuron-gate-linux-$arch"
releases="$tmp/releases"
built_from="0123456789abcdef0123456789abcdef01234567" # the commit the stub release says it was built from
make_release() { # make_release TAG COMMIT: an archive laid out as scripts/release/build.sh makes it, whose
  # bin/neuron-gate reports COMMIT in --version and runs the tested binary otherwise
  local stage="$tmp/stage-$1"
  mkdir -p "$stage/$asset/bin" "$releases/$1"
  printf '#!/usr/bin/env bash\n# release %s\n[ "${1:-}" != --version ] || { echo "neuron-gate 0.1.0 (git commit %s)"; exit 0; }\nexec %q "$@"\n' \
    "$1" "${2:0:12}" "$binary" > "$stage/$asset/bin/neuron-gate"
  chmod +x "$stage/$asset/bin/neuron-gate"
  tar -C "$stage" -czf "$releases/$1/$asset.tar.gz" "$asset"
}
make_release v1.2.3 "$built_from"
make_release v6.6.6 "$built_from" # served in place of v1.2.3's archive: a tampered download
make_release v5.5.5 fedcba9876543210fedcba9876543210fedcba98 # built from another commit than its pin says
python3 - "$releases" "$tmp/port" > "$tmp/server.log" 2>&1 <<'PY' &
import functools, http.server, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
open(sys.argv[2] + ".tmp", "w").write(str(server.server_address[1]))
__import__("os").rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
PY
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null; [ -n "${KEEP_TMP:-}" ] || rm -rf "$tmp"' EXIT
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
server="http://127.0.0.1:$(cat "$tmp/port" 2>/dev/null)"
# Pins as .github/workflows/release.yml commits them (scripts/release/pin.sh), one per case.
pins="$tmp/pins"
mkdir -p "$pins"
bash "$root/scripts/release/pin.sh" v1.2.3 "$built_from" "$server/v1.2.3" "$releases/v1.2.3" > "$pins/good"
sed "s|$server/v1.2.3|$server/v6.6.6|" "$pins/good" > "$pins/tampered"
sed "s|$server/v1.2.3|$server/v5.5.5|; s|^sha256 $arch .*|sha256 $arch $(sha256sum "$releases/v5.5.5/$asset.tar.gz" | cut -d' ' -f1)|" \
  "$pins/good" > "$pins/other-commit"
sed "s|$server/v1.2.3|$server/v0.0.1|" "$pins/good" > "$pins/missing"
sed "s|$server/v1.2.3|http://127.0.0.1:9/v1.2.3|" "$pins/good" > "$pins/unreachable"
grep -v "^sha256 $arch " "$pins/good" > "$pins/other-arch"
printf 'sha256 riscv64 %s\n' "$(printf 'a%.0s' {1..64})" >> "$pins/other-arch"
sed 's|^url .*|url https://evil.example/$(id)|' "$pins/good" > "$pins/malformed"
# The action as the runner lays out `uses: your-org/neuron-gate@REF`: .../_actions/your-org/neuron-gate/REF,
# with PIN as its scripts/action/release-pin (no pin: a commit that is not a release).
action_at() { # action_at REF [PIN]: prints the action folder for REF
  local dir="$tmp/_actions/your-org/neuron-gate/$1" entry
  mkdir -p "$dir"
  for entry in "$root"/* "$root/.github"; do
    case "$(basename "$entry")" in
      scripts | src | cmake | rules | CMakeLists.txt | action.yml) cp -r "$entry" "$dir/" ;;
      *) ln -sfn "$entry" "$dir/$(basename "$entry")" ;;
    esac
  done
  rm -f "$dir/scripts/action/release-pin"
  [ -z "${2:-}" ] || cp "$pins/$2" "$dir/scripts/action/release-pin"
  echo "$dir"
}
ran() { grep -q "^\[mini_runner\] $2: running" "$tmp/$1/stderr"; } # ran CASE STEP_NAME
release_binary() { echo "$tmp/$1/runner-temp/neuron-gate-release/$asset/bin/neuron-gate"; }
built_binary() { echo "$tmp/$1/runner-temp/neuron-gate-build/src/neuron-gate"; }
no_build() { ! grep -q 'Build neuron-gate: running' "$tmp/$1/stderr"; }
check "this checkout carries no release-pin (only the release commits that tags point at do)" \
  test ! -e "$root/scripts/action/release-pin"

ACTION_DIR="$(action_at v1.2.3 good)" gate rel1 "$pr_event" "$examples/A" "$examples/Areg" never regression
check "pinned release: the regression still fails the step (exit 1)" equals "$(rc rel1)" 1
check "pinned release: output verdict=regression" equals "$(out rel1 verdict)" regression
check "pinned release: the downloaded binary ran (output binary)" equals "$(out rel1 binary)" "$(release_binary rel1)"
check "pinned release: the archive was fetched from the pin's url" grep -q "GET /v1.2.3/$asset.tar.gz HTTP" "$tmp/server.log"
check "pinned release: verified against the committed SHA-256" contains "$tmp/rel1/stderr" \
  "sha256 $(sha256sum "$releases/v1.2.3/$asset.tar.gz" | cut -d' ' -f1) verified against the action's release-pin"
check "pinned release: no source build (cache and build steps skipped)" no_build rel1
check "pinned release: the binary is the published one" cmp "$(release_binary rel1)" "$tmp/stage-v1.2.3/$asset/bin/neuron-gate"
NG_RELEASE_URL="http://127.0.0.1:9" ACTION_DIR="$(action_at "$built_from" good)" gate rel7 "$pr_event" "$examples/A" "$examples/A2" never regression
check "pinned by commit SHA: the pinned release is used" equals "$(out rel7 binary)" "$(release_binary rel7)"
check "NG_RELEASE_URL in the job environment is ignored" bash -c "! grep -q '127.0.0.1:9' '$tmp/rel7/stderr'"

ACTION_DIR="$(action_at v1.2.3 tampered)" gate rel2 "$pr_event" "$examples/A" "$examples/A2" never never
check "tampered archive: the step fails (even with fail-on never)" equals "$(rc rel2)" 1
check "tampered archive: an ::error:: says so" contains "$tmp/rel2/stdout" "::error title=neuron-gate release::checksum mismatch for $server/v6.6.6/$asset.tar.gz: the action's release-pin says"
check "tampered archive: the binary is not unpacked" test ! -e "$(release_binary rel2)"
check "tampered archive: no silent source build" no_build rel2
check "tampered archive: neuron-gate did not run (no verdict)" equals "$(out rel2 verdict)" ""

ACTION_DIR="$(action_at v5.5.5 other-commit)" gate rel3 "$pr_event" "$examples/A" "$examples/A2" never never
check "a binary built from another commit than pinned: the step fails" equals "$(rc rel3)$(out rel3 verdict)" 1
check "which the ::error:: names" contains "$tmp/rel3/stdout" "not the pinned commit ${built_from:0:12}; not used"
ACTION_DIR="$(action_at v1.2.3 malformed)" gate rel10 "$pr_event" "$examples/A" "$examples/A2" never never
check "a malformed release-pin: the step fails, nothing fetched" equals "$(rc rel10)$(out rel10 verdict)" 1
check "which the ::error:: names" contains "$tmp/rel10/stdout" "::error title=neuron-gate release::release-pin: bad url line"

ACTION_DIR="$(action_at v0.0.1 missing)" gate rel4 "$pr_event" "$examples/A" "$examples/A2" never regression
check "pinned release missing (404): a warning, the source build, the step passes" equals "$(rc rel4)$(out rel4 binary)" "0$(built_binary rel4)"
check "pinned release missing: the build step ran" ran rel4 "Build neuron-gate"
check "pinned release missing: the warning" contains "$tmp/rel4/stdout" "::warning title=neuron-gate release::could not download $server/v0.0.1/$asset.tar.gz (HTTP 404"
ACTION_DIR="$(action_at feature/fast)" gate rel5 "$pr_event" "$examples/A" "$examples/A2" never regression
check "no release-pin (a branch with a slash): source build, pass" equals "$(rc rel5)$(out rel5 binary)" "0$(built_binary rel5)"
check "no release-pin: the note says why" contains "$tmp/rel5/stderr" "this commit of the action pins no release"
ACTION_DIR="$(action_at 89abcdef0123456789abcdef0123456789abcdef)" gate rel6 "$pr_event" "$examples/A" "$examples/A2" never regression
check "a commit SHA without a release-pin: source build" equals "$(out rel6 binary)" "$(built_binary rel6)"
ACTION_DIR="$(action_at v1.2.3 other-arch)" gate rel11 "$pr_event" "$examples/A" "$examples/A2" never regression
check "a pin without this architecture: source build, and says so" contains "$tmp/rel11/stderr" "release v1.2.3 has no binary for $arch; building from source"
ACTION_DIR="$(action_at v1.2.3 good)" gate rel8 "$pr_event" "$examples/A" "$examples/A2" never regression --input from-source=true
check "from-source true: built even though a release is pinned" equals "$(out rel8 binary)" "$(built_binary rel8)"
ACTION_DIR="$(action_at v1.2.3 unreachable)" gate rel9 "$pr_event" "$examples/A" "$examples/A2" never regression
check "release server unreachable: a warning, then the source build" equals "$(rc rel9)$(out rel9 binary)" "0$(built_binary rel9)"
check "release server unreachable: the warning" contains "$tmp/rel9/stdout" "::warning title=neuron-gate release::could not download"

run_action setup1 "$(action_at v1.2.3 good)/action.yml" "$pr_event" --input setup-only=true
check "setup-only: the step passes without base and head" equals "$(rc setup1)" 0
check "setup-only: output binary is the downloaded one" equals "$(out setup1 binary)" "$(release_binary setup1)"
check "setup-only: neuron-gate compare did not run" bash -c "! grep -q 'neuron-gate compare: running' '$tmp/setup1/stderr'"

echo "# the source build fallback: a cached build for another key is rebuilt (stub cmake), the same key reused"
mkdir -p "$tmp/stub-bin"
cat > "$tmp/stub-bin/cmake" <<STUB
#!/usr/bin/env bash
# Stub cmake: logs its arguments; a --build of target neuron-gate puts the real binary in place.
echo "\$*" >> "$tmp/cmake.log"
if [ "\$1" = "--build" ]; then mkdir -p "\$2/src" && rm -f "\$2/src/neuron-gate" && cp "$binary" "\$2/src/neuron-gate"; fi
STUB
chmod +x "$tmp/stub-bin/cmake"
: > "$tmp/cmake.log"
CACHED_KEY="neuron-gate-build-older" PATH="$tmp/stub-bin:$PATH" \
  ACTION_DIR="$(action_at v0.0.2)" gate src1 "$pr_event" "$examples/A" "$examples/Areg" never regression
check "stale cache: the build step configured (Release, no tests)" grep -q -- "-DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF" "$tmp/cmake.log"
check "stale cache: and built the neuron-gate target" grep -q -- "--build $tmp/src1/runner-temp/neuron-gate-build --target neuron-gate" "$tmp/cmake.log"
check "stale cache: the new key is recorded for the cache save" equals "$(cat "$tmp/src1/runner-temp/neuron-gate-build/.neuron-gate-key")" "$cache_key"
check "stale cache: the rebuilt binary gated the PR (exit 1)" equals "$(rc src1)$(out src1 verdict)" "1regression"
: > "$tmp/cmake.log"
PATH="$tmp/stub-bin:$PATH" ACTION_DIR="$(action_at v0.0.2)" gate src2 "$pr_event" "$examples/A" "$examples/A2" never regression
check "exact cache hit: cmake is not run" equals "$(grep -c . "$tmp/cmake.log")" 0
check "exact cache hit: the cached binary is reused" contains "$tmp/src2/stderr" "reusing neuron-gate"
if [ -n "${NG_TEST_REAL_BUILD:-}" ]; then
  start=$SECONDS
  bash "$root/scripts/action/build.sh" build "$root" "$tmp/real-build" "$cache_key" > "$tmp/real-build.out" 2> "$tmp/real-build.log"
  check "real source build (NG_TEST_REAL_BUILD): a working binary in $((SECONDS - start)) s" \
    "$(sed -n 's/^binary=//p' "$tmp/real-build.out")" --version
fi

echo "# annotations: the binary's file, printed as written"
check "reg1: neuron-gate wrote annotations.txt in the report folder" test -s "$(out reg1 report-dir)/annotations.txt"
check "reg1: the step printed exactly the binary's annotations" equals \
  "$(grep -E '^::(error|warning|notice) title=neuron-gate(%3A|::)' "$tmp/reg1/stdout")" \
  "$(cat "$(out reg1 report-dir)/annotations.txt")"
check "err1: the binary's error annotation names the missing profile" contains "$(out err1 report-dir)/annotations.txt" "does-not-exist"
check "the scripts hold no annotation policy (no annotate.sh, no annotations command)" \
  equals "$(ls "$root/scripts/action/annotate.sh" 2>/dev/null; grep -c 'def cmd_annotations' "$root/scripts/action/action_json.py")" 0

echo "# comment-key: a matrix keeps one sticky comment per key (issue 16 item 4)"
keyed_ids() { # keyed_ids KEY: ids of github-actions[bot] comments on #42 whose first line is KEY's marker
  python3 - "$GH_STUB_STATE" "$1" <<'PY'
import json, sys
state, key = json.load(open(sys.argv[1])), sys.argv[2]
marker = "<!-- neuron-gate -->" if key == "" else f"<!-- neuron-gate key={key} -->"
for c in state["comments"].get("octo-org/neuron-app#42", []):
    if c["user"]["login"] == "github-actions[bot]" and c["body"].split("\n")[0] == marker:
        print(c["id"])
PY
}
seed_state
gate key1 "$pr_event" "$examples/A" "$examples/Areg" always never --input "comment-key=model-a"
gate key2 "$pr_event" "$examples/A" "$examples/A2" always never --input "comment-key=model-b"
gate key3 "$pr_event" "$examples/A" "$examples/Areg" always never --input "comment-key=model-a"
gate key4 "$pr_event" "$examples/A" "$examples/A2" always never
check "key model-a: one comment, created then updated" equals "$(keyed_ids model-a | grep -c .)" 1
check "key model-b: its own comment" equals "$(keyed_ids model-b | grep -c .)" 1
check "no key: its own comment, apart from the keyed ones" equals "$(keyed_ids "" | grep -c .)" 1
check "the second model-a run PATCHed its comment, posted none" equals \
  "$(calls key3 PATCH "repos/octo-org/neuron-app/issues/comments/$(keyed_ids model-a)")$(calls key3 POST '.*')" "10"
check "the report itself ends with the keyed marker (compare --comment-key)" equals \
  "$(tail -n 1 "$(out key2 report-markdown)")" "<!-- neuron-gate key=model-b -->"
check "comment.json carries the key for a workflow_run comment job" equals \
  "$(python3 "$root/scripts/action/action_json.py" get "$(out key2 report-dir)/comment.json" comment_key)" "model-b"
gate key5 "$pr_event" "$examples/A" "$examples/A2" always never --input "comment-key=a b"
check "a bad comment-key is a configuration error (exit 2, nothing run)" equals "$(rc key5)$(calls key5 POST '.*')" "20"
check "and says what a key may hold" contains "$tmp/key5/stdout" "input comment-key must be 1-64 of A-Z a-z 0-9 . _ -"
gate cfg1 "$pr_event" "$examples/A" "$examples/A2" never never --input "args=--strict 'x"
check "args with an unbalanced quote: a configuration error (exit 2) with the outputs set" equals \
  "$(rc cfg1)$(out cfg1 verdict)$(out cfg1 exit-code)" "2error2"
check "and no Python traceback" equals "$(grep -c Traceback "$tmp/cfg1/stderr" "$tmp/cfg1/stdout" | awk -F: '{s += $2} END {print s}')" 0
gate cfg2 "$pr_event" "$examples/A" "$examples/A2" "$(printf 'never\n::warning::injected')" never
check "a configuration error cannot start a workflow command of its own (%0A)" equals \
  "$(grep -c '^::warning::injected' "$tmp/cfg2/stdout")$(rc cfg2)" "02"
# Lines that a runner would run as workflow commands, outside a ::stop-commands:: block of the same stream
# (stdout and stderr are read apart, so a block never spans both): a line is what the runner's ReadLine
# reads (ended by LF, CR or CR LF, so a bare CR ends one too), a command one that starts with "::" after
# leading blanks (ActionCommand.TryParseV2) or holds "##[" ANYWHERE (the legacy ActionCommand.TryParse,
# still tried when the first fails: `##[set-output name=x;]v`, `##[add-mask]v` in the middle of a message).
live_commands() { # live_commands FILE
  python3 - "$1" <<'PY'
import re, sys
token = None
for line in re.split(r"\r\n|\r|\n", open(sys.argv[1], encoding="utf-8", errors="replace").read()):
    if token is not None:
        if line.strip() == f"::{token}::" or f"##[{token}]" in line:
            token = None
    elif line.lstrip().startswith("::stop-commands::"):
        token = line.lstrip()[len("::stop-commands::"):]
    elif line.lstrip().startswith("::") or "##[" in line:
        print(line)
PY
}
# An input with a line break (args a workflow builds from PR text): the action echoes its command line (the
# text is in the log once; neuron-gate's own usage error escapes it, test_cli_usage.cpp); no line of it may
# run as a command.
gate inj1 "$pr_event" "$examples/A" "$examples/A2" never never --input "$(printf 'args=--strict "x\n::add-mask::y\n::error::pwned"')"
check "args with a line break: exit 2, the text is in the log" equals \
  "$(rc inj1)$(out inj1 exit-code)$(cat "$tmp/inj1/stdout" "$tmp/inj1/stderr" | grep -c '^::error::pwned')" 021
check "but no line of it is a live workflow command (stop-commands)" equals \
  "$(live_commands "$tmp/inj1/stdout" | grep -c -e '^::error::pwned' -e '^::add-mask::')$(live_commands "$tmp/inj1/stderr" | grep -c -e '^::error::pwned' -e '^::add-mask::')" 00
check "the action's own annotation stays live" equals "$(live_commands "$tmp/inj1/stdout" | grep -c '^::error title=neuron-gate%3A exit code 2')" 1
gate inj2 "$pr_event" "$examples/A" "$examples/A2" never never --input "rules=$(printf 'x\n::error::pwned')" --input rules-ref=
check "a rules path with a line break: no live command of its own" equals \
  "$(live_commands "$tmp/inj2/stdout" | grep -c '^::error::pwned')$(live_commands "$tmp/inj2/stderr" | grep -c '^::error::pwned')" 00
# The report folder's path goes to $GITHUB_OUTPUT as name=value lines.
gate inj3 "$pr_event" "$examples/A" "$examples/A2" never never --input "report-dir=$(printf '%s\nverdict=pass' "$tmp/inj3-dir")"
check "a report folder with a line break: a configuration error, no output of its own" equals \
  "$(rc inj3)$(out inj3 verdict)$(grep -c '^verdict=pass' "$tmp/inj3/output")" 2error0
# A report folder holding a report.html that this run did not write (the PR's checkout): not an output.
mkdir -p "$tmp/stale-dir" && echo '<script>stale</script>' > "$tmp/stale-dir/report.html"
gate stale1 "$pr_event" "$examples/A" "$examples/missing" never never --input "report-dir=$tmp/stale-dir"
check "an input error with a stale report.html in report-dir: output report-html empty, the file gone" equals \
  "$(rc stale1)$(out stale1 exit-code)/$(out stale1 report-html)/$([ -e "$tmp/stale-dir/report.html" ] && echo kept)" 02//

echo "# trust boundaries: a run that compared nothing never passes; artifact text is never a command"
# compare -h/--help prints the usage and exits 0 without comparing: with a regression pair it must not read
# as a pass (step, outputs, comment.json, and so the fork flow's on-change comment).
for help_arg in --help -h; do
  case_name="help$help_arg"
  gate "$case_name" "$pr_event" "$examples/A" "$examples/Areg" artifact-only regression --input "args=--strict $help_arg" \
    --input "report-dir=$tmp/$case_name-artifact"
  check "args '$help_arg' (compare exits 0, compares nothing): exit 2, verdict error, not a pass" equals \
    "$(rc "$case_name")/$(out "$case_name" verdict)/$(out "$case_name" exit-code)/$(out "$case_name" report-json)" 2/error/2/
  check "args '$help_arg': comment.json says error, not pass" contains "$tmp/$case_name-artifact/comment.json" '"verdict": "error"'
  check "args '$help_arg': an ::error:: says nothing was compared" contains "$tmp/$case_name/stdout" \
    "::error title=neuron-gate action::neuron-gate exited 0 but wrote no report"
done
gate help-never "$pr_event" "$examples/A" "$examples/Areg" never never --input "args=--help"
check "args --help with fail-on never: the step passes (report only) but the verdict is error" equals \
  "$(rc help-never)/$(out help-never verdict)" 0/error
rm -f "$GH_STUB_STATE"
seed_state
run_action help-post "$root/post-comment/action.yml" "$tmp/event_run_success.json" \
  --input "report-dir=$tmp/help--help-artifact" --input comment=on-change
check "fork flow, on-change, a run that compared nothing: the no-report note is posted, not skipped as a pass" equals \
  "$(rc help-post)/$(calls help-post POST '.*')/$(state_comments "octo-org/neuron-app#42" body | grep -c 'neuron-gate wrote no report in the pull request.s workflow run (exit code 2)')" 0/1/1
# The workflow_run job holds the write token: a message quoting the artifact (neuron-gate render refusing
# report.json, a bad pr_number) is printed with workflow commands off, so `##[...]` in it is never a command.
rm -rf "$tmp/dl-inj" && cp -r "$tmp/artifact" "$tmp/dl-inj"
set_fields() { # set_fields FILE KEY VALUE [KEY VALUE ...]: sets top-level string fields of a JSON file
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); a = sys.argv[2:]; d.update(zip(a[::2], a[1::2]))
json.dump(d, open(sys.argv[1], "w"))' "$@"
}
set_fields "$tmp/dl-inj/report.json" schema "##[set-output name=comment-url;]https://evil.example/x ##[add-mask]Posted"
run_action inj-render "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/dl-inj"
check "fork flow, report.json whose refused schema holds ##[set-output]: the job fails, nothing posted" equals \
  "$(rc inj-render)/$(calls inj-render POST '.*')$(calls inj-render PATCH '.*')" 1/00
check "and render's message (quoting it) is in the log" contains "$tmp/inj-render/stderr" '"schema" is "##[set-output name=comment-url;]'
check "but no line of it is a live workflow command (stop-commands), neither ##[ nor ::" equals \
  "$(live_commands "$tmp/inj-render/stdout" | grep -c -e '##\[' -e '^::set-output')/$(live_commands "$tmp/inj-render/stderr" | grep -c .)" 0/0
check "the action's own ::error:: stays live" equals \
  "$(live_commands "$tmp/inj-render/stdout" | grep -c "^::error title=neuron-gate comment::the artifact's report.json does not read")" 1
set_fields "$tmp/dl-inj/report.json" schema neuron-gate.report/2 \
  outcome $'PASS\r##[error]forged in a bare-CR line\r::add-mask::Posted'
run_action inj-render2 "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/dl-inj"
check "fork flow, report.json with CR and ##[error] in a refused value: fails, no live command" equals \
  "$(rc inj-render2)/$(live_commands "$tmp/inj-render2/stdout" | grep -c -e '##\[' -e '^::add-mask')/$(live_commands "$tmp/inj-render2/stderr" | grep -c .)" 1/0/0
cp "$tmp/artifact/report.json" "$tmp/dl-inj/report.json"
set_fields "$tmp/dl-inj/comment.json" pr_number "##[set-output name=comment-url;]https://evil.example/y"
run_action inj-target "$root/post-comment/action.yml" "$run_event" --input "report-dir=$tmp/dl-inj"
check "fork flow, comment.json pr_number holding ##[set-output]: refused, gh not called" equals \
  "$(rc inj-target)/$(grep -c . "$tmp/inj-target/gh.log")" 1/0
check "the refusal quotes it in the log, but as data: no live command" equals \
  "$(grep -c 'invalid pr_number in comment.json' "$tmp/inj-target/stderr")/$(live_commands "$tmp/inj-target/stdout" | grep -c '##\[')$(live_commands "$tmp/inj-target/stderr" | grep -c .)" 1/00
# Every string of a profile is data (op and label names here): in the annotations, the log and the comment,
# none is a command, a mention, an image, a marker or an HTML comment.
python3 - "$root/$examples" "$tmp/evil" <<'PY'
import glob, json, os, shutil, sys
src, dst = sys.argv[1:]
label = "rms\r##[add-mask]zz\n::error::pwned `@org/team` @org/team <!-- neuron-gate --> </details> ![i](https://evil.example/i.png) ```"
op = "aten::div_\r##[set-output name=verdict;]pass | @octocat <img src=https://evil.example/x>"
for side in ("A", "Areg"):
    shutil.copytree(os.path.join(src, side), os.path.join(dst, side))
    for path in glob.glob(os.path.join(dst, side, "**", "*.pt.trace.json"), recursive=True):
        events = json.load(open(path))
        for event in events:
            if event.get("name") == "rmsnorm_step":
                event["name"] = label
            if side == "Areg" and event.get("name") == "aten::div_":
                event["name"] = op
        json.dump(events, open(path, "w"))
    for path in glob.glob(os.path.join(dst, side, "**", "run_meta.json"), recursive=True):
        meta = json.load(open(path))
        meta["record_function"] = label
        json.dump(meta, open(path, "w"))
PY
rm -f "$GH_STUB_STATE"
seed_state
gate evil1 "$pr_event" "$tmp/evil/A" "$tmp/evil/Areg" always regression
check "crafted op and label names: still the regression (exit 1)" equals "$(rc evil1)/$(out evil1 verdict)" 1/regression
check "crafted op and label names: no live command in the log but the action's own annotations" equals \
  "$(live_commands "$tmp/evil1/stdout" | grep -v -c -e '^::error title=neuron-gate%3A' -e '^::warning title=neuron-gate%3A')/$(live_commands "$tmp/evil1/stderr" | grep -c .)" 0/0
state_comments "octo-org/neuron-app#42" body > "$tmp/evil1/body.md"
cat > "$tmp/outside_code.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
bad = []
markers = [line for line in text.split("\n") if line.strip().startswith("<!-- neuron-gate")]
if len(markers) != 1:
    bad.append(f"{len(markers)} marker lines")
in_fence = False
for line in text.split("\n")[1:]:  # the first line is the marker
    if line.startswith("```"):
        in_fence = not in_fence
        continue
    if in_fence:
        continue
    # A table row splits into cells at an unescaped | before code spans are read (GFM): each cell on its own.
    for cell in re.split(r"(?<!\\)\|", line) if line.startswith("|") else [line]:
        outside = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", cell)
        for needle in ("@org/team", "@octocat", "evil.example", "<!--", "<img", "</details> ![i]"):
            if needle in outside:
                bad.append(f"{needle!r} outside a code span: {line[:160]!r}")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
check "crafted names in the comment: one marker line, no mention, image, HTML or marker outside code spans" \
  python3 "$tmp/outside_code.py" "$tmp/evil1/body.md"

# An input shown in the log (the report folder here) is data too: a `##[...]` in it is no command.
gate inj-dir "$pr_event" "$examples/A" "$examples/A2" artifact-only never --input "report-dir=$tmp/reports ##[error]forged"
check "a report folder holding ##[error]: the run works, the path is logged, no live ##[ command" equals \
  "$(rc inj-dir)/$(out inj-dir verdict)/$(grep -c 'reports in .*##\[error\]forged' "$tmp/inj-dir/stdout")/$(live_commands "$tmp/inj-dir/stdout" | grep -c '##\[')" 0/pass/1/0

echo "# operating points (docs/user-guide.md \"Operating points\"): a regression at one point fails, naming it"
points="tests/data/profiles/operating-points"
gate points1 "$pr_event" "$points/base" "$points/head" never regression
check "six points, Areg at 16x2048-float32 only: exit code 1" equals "$(rc points1)" 1
check "output verdict=regression" equals "$(out points1 verdict)" regression
check "output regressions=1 (latency at 16x2048-float32, from the points' reports)" equals "$(out points1 regressions)" 1
check "one ::error:: annotation" equals "$(annotations points1 error)" 1
check "it names the point" contains "$tmp/points1/stdout" "latency [at 16x2048-float32] regressed"
gate points2 "$pr_event" "$points/base" "$points/partial" never regression
check "a base point missing in head fails the gate: not comparable (docs/decision-rule.md)" equals "$(rc points2)$(out points2 verdict)" 3not-comparable
check "it is a warning naming the point" contains "$tmp/points2/stdout" "operating point 64x4096-float32 not compared"

echo "# every workflow of docs/github-action.md, run job by job (tests/action/run_workflow.py): each installs what it calls"
# The user's repository: main holds bench/step.py and the rules; the pull request makes the step slower. The
# python stub stands for the environment holding torch: `-m pip install DIR` installs the capture helper
# into this job only (a fresh runner), `-m neuron_gate_capture` refuses without it and writes the example
# profile named in the script it is given (A on main, Areg in the pull request).
wf="$tmp/workflows"
mkdir -p "$wf/stub-bin" "$wf/user"
cat > "$wf/stub-bin/python" <<'PY'
#!/usr/bin/env python3
import os, re, shutil, sys
marker = os.path.join(os.environ["RUNNER_TEMP"], "neuron_gate_capture-installed")
args = sys.argv[1:]
if args[:2] == ["-m", "venv"]:  # the job's own environment: a python (this stub) under DIR/bin
    os.makedirs(os.path.join(args[-1], "bin"), exist_ok=True)
    shutil.copy(sys.argv[0], os.path.join(args[-1], "bin", "python"))
    sys.exit(0)
if args[:3] == ["-m", "pip", "install"]:
    if not os.path.isfile(os.path.join(args[-1], "pyproject.toml")):
        sys.exit(f"pip: {args[-1]} is no Python project")
    open(marker, "w").close()
    sys.exit(0)
if args[:2] == ["-m", "neuron_gate_capture"]:
    if not os.path.exists(marker):
        sys.exit("python: No module named neuron_gate_capture (not installed in this job)")
    pairs = [(args[2], args[args.index("--out") + 1])]
    if "--interleave" in args:
        pairs.append((args[args.index("--interleave") + 1], args[args.index("--interleave-out") + 1]))
    for script, out in pairs:
        name = re.search(r"profile: (\w+)", open(script).read()).group(1)
        shutil.copytree(os.path.join(os.environ["NG_TEST_EXAMPLES"], name), out)
    sys.exit(0)
sys.exit(f"python stub: unexpected {args}")
PY
chmod +x "$wf/stub-bin/python"
git init -q -b main "$wf/user"
mkdir -p "$wf/user/bench" "$wf/user/.github"
echo "# neuron-gate-test profile: A" > "$wf/user/bench/step.py"
cp "$root/rules/default.json" "$wf/user/.github/neuron-gate-rules.json"
git -C "$wf/user" add -A && git -C "$wf/user" -c user.name=t -c user.email=t@t commit -qm base
wf_base="$(git -C "$wf/user" rev-parse HEAD)"
echo "# neuron-gate-test profile: Areg" > "$wf/user/bench/step.py"
git -C "$wf/user" -c user.name=t -c user.email=t@t commit -qam "slower step"
wf_head="$(git -C "$wf/user" rev-parse HEAD)"
git clone -q --bare "$wf/user" "$wf/origin.git"
git -C "$wf/origin.git" update-ref refs/heads/main "$wf_base"
python3 - "$wf" "$wf_base" "$wf_head" <<'PY'
import json, sys
wf, base, head = sys.argv[1:]
repo = {"full_name": "octo-org/neuron-app"}
json.dump({"number": 42, "pull_request": {"number": 42, "head": {"sha": head, "repo": repo},
           "base": {"sha": base, "repo": repo}}, "repository": repo}, open(f"{wf}/pull_request.json", "w"))
json.dump({"ref": "refs/heads/main", "after": base, "repository": repo}, open(f"{wf}/push.json", "w"))
json.dump({"workflow_run": {"id": 4242, "event": "pull_request", "head_sha": head, "head_repository": repo},
           "repository": repo}, open(f"{wf}/workflow_run.json", "w"))
json.dump({"next_id": 7000, "comments": {},
           "pulls": {"octo-org/neuron-app#42": {"head_sha": head, "head_repo": repo["full_name"]}}},
          open(f"{wf}/gh-state.json", "w"))
PY
python3 - "$root/docs/github-action.md" "$wf/yml" <<'PY'
import os, re, sys
os.makedirs(sys.argv[2])
for block in re.findall(r"```yaml\n(.*?)```", open(sys.argv[1], encoding="utf-8").read(), re.S):
    match = re.match(r"# \.github/workflows/([\w.-]+\.ya?ml)\n", block)
    if match:
        open(os.path.join(sys.argv[2], match.group(1)), "w", encoding="utf-8").write(block)
PY
# run_workflow NAME EVENT [--run-artifacts DIR]: one run of docs' .github/workflows/NAME.yml
run_workflow() {
  local name="$1" event="$2"
  shift 2
  mkdir -p "$wf/$name/bin"
  cp "$here/gh_stub.py" "$wf/$name/bin/gh" && chmod +x "$wf/$name/bin/gh"
  PATH="$wf/stub-bin:$wf/$name/bin:/usr/local/bin:/usr/bin:/bin" GH_STUB_STATE="$wf/gh-state.json" \
    GH_STUB_LOG="$wf/$name/gh.log" NG_TEST_EXAMPLES="$root/$examples" GITHUB_REPOSITORY="octo-org/neuron-app" \
    GITHUB_RUN_ID=4242 GIT_AUTHOR_NAME=ci GIT_AUTHOR_EMAIL=ci@example.com GIT_COMMITTER_NAME=ci \
    GIT_COMMITTER_EMAIL=ci@example.com NG_TEST_BINARY="$binary" NG_TEST_CACHE_KEY="$cache_key" \
    python3 "$here/run_workflow.py" "$wf/yml/$name.yml" --root "$root" --origin "$wf/origin.git" \
    --event "$wf/$event.json" --artifacts "$wf/$name/artifacts" --work "$wf/$name/work" \
    --results "$wf/$name/results.json" "$@" > "$wf/$name/log" 2>&1
  echo $? > "$wf/$name/rc"
}
job() { # job NAME JOB [STEP OUTPUT]: the job's result, or a step's output
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])).get(sys.argv[2],{}); print(r.get("result","absent") if len(sys.argv)<4 else r["steps"].get(sys.argv[3],{}).get(sys.argv[4],""))' \
    "$wf/$1/results.json" "${@:2}"
}
found=$(ls "$wf/yml" | tr '\n' ' ')
check "docs/github-action.md holds the six workflows run here" equals "$found" \
  "neuron-gate-baseline.yml neuron-gate-comment.yml neuron-gate-fork.yml neuron-gate-stored.yml neuron-gate-warm.yml neuron-gate.yml "
run_workflow neuron-gate pull_request
check "neuron-gate.yml: profile installs the helper and captures both sides" equals "$(job neuron-gate profile)" success
check "neuron-gate.yml: the gate fails on A -> Areg (regression)" equals \
  "$(job neuron-gate gate)/$(job neuron-gate gate gate verdict)" failure/regression
check "neuron-gate.yml: the report artifact holds the HTML report" test -s "$wf/neuron-gate/artifacts/neuron-gate-report/report.html"
check "neuron-gate.yml: the sticky comment was posted" contains "$wf/neuron-gate/gh.log" '"method": "POST"'
run_workflow neuron-gate-fork pull_request
check "neuron-gate-fork.yml: gate with artifact-only fails on the regression, posts nothing" equals \
  "$(job neuron-gate-fork gate gate verdict)/$(grep -c POST "$wf/neuron-gate-fork/gh.log" 2>/dev/null || echo 0)" regression/0
check "neuron-gate-fork.yml: the report artifact holds comment.json and report.html" test -s \
  "$wf/neuron-gate-fork/artifacts/neuron-gate-report/comment.json" -a -s "$wf/neuron-gate-fork/artifacts/neuron-gate-report/report.html"
run_workflow neuron-gate-comment workflow_run --run-artifacts "$wf/neuron-gate-fork/artifacts"
check "neuron-gate-comment.yml: succeeds" equals "$(job neuron-gate-comment comment)" success
check "neuron-gate-comment.yml: posts the fork run's report (updating the sticky comment)" contains \
  "$wf/neuron-gate-comment/gh.log" "from the report artifact of the pull request's workflow run 4242"
run_workflow neuron-gate-warm push
check "neuron-gate-warm.yml: setup-only gets the binary" equals "$(job neuron-gate-warm warm)" success
run_workflow neuron-gate-baseline push
check "neuron-gate-baseline.yml: captures main (no write token), saves and pushes the stored baseline" equals \
  "$(job neuron-gate-baseline profile)/$(job neuron-gate-baseline save)/$(git -C "$wf/origin.git" rev-parse -q --verify refs/neuron-gate/baselines/rmsnorm-bs4 >/dev/null && echo pushed)" success/success/pushed
check "docs' workflows: no pull-request job on the runners that profile the default branch, no shared pip" equals \
  "$(grep -c 'runs-on: \[self-hosted, trainium\]' "$wf"/yml/*.yml | awk -F: '{s += $2} END {print s}')/$(grep -h 'pip install' "$wf"/yml/*.yml | grep -vc 'ng-venv/bin/python')" 0/0
run_workflow neuron-gate-stored pull_request
check "neuron-gate-stored.yml: profile captures head only" equals "$(job neuron-gate-stored profile)" success
check "neuron-gate-stored.yml: the gate against the stored baseline finds the regression" equals \
  "$(job neuron-gate-stored gate gate verdict)" regression
check "neuron-gate-stored.yml: the report artifact holds the HTML report" test -s "$wf/neuron-gate-stored/artifacts/neuron-gate-report/report.html"
for name in neuron-gate neuron-gate-fork neuron-gate-comment neuron-gate-warm neuron-gate-baseline neuron-gate-stored; do
  check "$name.yml ran to the end (run_workflow exit 0)" equals "$(cat "$wf/$name/rc")" 0 || cat "$wf/$name/log"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
