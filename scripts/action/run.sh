#!/usr/bin/env bash
# The gate step of the GitHub Action (action.yml), also runnable locally (tests/action/test_action.sh):
# runs `neuron-gate compare`, appends the Markdown report to $GITHUB_STEP_SUMMARY, writes the step outputs
# to $GITHUB_OUTPUT, prints the annotations neuron-gate wrote (compare --annotations: workflow commands,
# rendered and escaped by the binary; docs/github-action.md), creates or updates the sticky PR comment
# (comment.sh), and only then exits with the step's result.
#
# Environment (action.yml maps its inputs to these):
#   NG_BINARY      the neuron-gate binary                        (required)
#   NG_BASE        base profile directory or file               (required)
#   NG_BASE_COMMIT the pull request's base commit: with a stored baseline (NG_BASE git:REF:@merge-base) it
#                  is passed as compare --base-commit, and required (a configuration error without it)
#   NG_HEAD        head profile directory or file               (required)
#   NG_RULES       rules file (optional), relative to the workspace
#   NG_RULES_REF   commit (or ref) whose version of NG_RULES is used, read with git show; "" = the file as
#                  checked out. action.yml passes the pull request's base commit by default, so a pull
#                  request cannot loosen its own rules; compare --rules-from names it in the report
#   NG_ARGS        extra compare flags, split like a shell would split them (no expansion or substitution)
#   NG_COMMENT     always | on-change | never | artifact-only   (default always)
#   NG_FAIL_ON     regression | never                           (default regression)
#   NG_REPORT_DIR  where the reports go (default $RUNNER_TEMP/neuron-gate-report); with artifact-only this
#                  folder (report.md, report.json, comment.json) is what post-comment/action.yml needs
#   GH_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY: as on a runner
#
# Outputs: verdict (pass | regression | error | not-comparable | no-decision, the last read
#   from report.json: exit code 0, or 4 under --strict), exit-code (neuron-gate's),
#   regressions (gating metrics that regressed, waivers excepted), report-markdown, report-json,
#   report-html (paths; report-json and report-html are empty when neuron-gate wrote none), report-dir
#   (all of them, for actions/upload-artifact); comment-id and comment-url when posted.
#
# Exit status (the step's result): with NG_FAIL_ON=regression, neuron-gate's exit code, so every non-zero
# code fails the step: 1 regression, 2 usage or input error, 3 not comparable, 4 no decision under
# --strict (and anything else, e.g. a crash); exit code 0 without a report.json (compare -h/--help in
# NG_ARGS: nothing compared) is made 2, verdict error. With NG_FAIL_ON=never, 0 whatever neuron-gate said.
# A bad value for NG_COMMENT / NG_FAIL_ON, or a missing binary/base/head setting, is a configuration
# error: exit 2 in either mode. A comment that cannot be posted is a warning, not a failure.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
json() { python3 "$here/action_json.py" "$@"; }
# $1 as workflow command data: %, CR and LF escaped as the runner requires, so a value in a message (an
# input, a path) cannot end the command's line and start a command of its own.
workflow_data() {
  local data="${1//'%'/%25}"
  data="${data//$'\r'/%0D}"
  printf '%s' "${data//$'\n'/%0A}"
}
# Prints stdin (text holding inputs or another program's messages) to stdout with workflow commands off
# (::stop-commands:: with a token made after the text was written), so no line of it is run as a command
# (::error::, ::add-mask::, ::stop-commands:: of its own). Every line a script prints that is not its own
# workflow command or neuron-gate's annotations file goes through here.
log_data() {
  local token
  token="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  echo "::stop-commands::neuron-gate-$token"
  cat
  echo "::neuron-gate-$token::"
}
# A configuration error: one ::error (the message through workflow_data), the outputs set to verdict error /
# exit code 2, exit 2.
config_error() {
  echo "::error title=neuron-gate action::$(workflow_data "$1")"
  local outputs=$'verdict=error\nexit-code=2\nregressions=0\nreport-markdown=\nreport-json=\nreport-html=\nreport-dir='
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s\n' "$outputs" >> "$GITHUB_OUTPUT"
  else
    printf '%s\n' "$outputs"
  fi
  exit 2
}

comment="${NG_COMMENT:-always}"
fail_on="${NG_FAIL_ON:-regression}"
case "$comment" in always | on-change | never | artifact-only) ;;
  *) config_error "input comment must be always, on-change, never or artifact-only, not '$comment'" ;;
esac
case "$fail_on" in regression | never) ;;
  *) config_error "input fail-on must be regression or never, not '$fail_on'" ;;
esac
comment_key="${NG_COMMENT_KEY:-}"
json check-key "$comment_key" ||
  config_error "input comment-key must be 1-64 of A-Z a-z 0-9 . _ - (one sticky comment per key), not '$comment_key'"
key_args=()
[ -z "$comment_key" ] || key_args=(--comment-key "$comment_key")
[ -n "${NG_BINARY:-}" ] || config_error "NG_BINARY (the neuron-gate binary) is not set"
[ -x "$NG_BINARY" ] || config_error "neuron-gate binary '$NG_BINARY' is not executable"
[ -n "${NG_BASE:-}" ] || config_error "input base (the base profile) is empty"
[ -n "${NG_HEAD:-}" ] || config_error "input head (the head profile) is empty"
command -v python3 >/dev/null 2>&1 || config_error "python3 is needed by the action's scripts"

dir="${NG_REPORT_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/neuron-gate-report}"
# The folder's path goes to $GITHUB_OUTPUT as name=value lines: a CR or LF in it would add outputs.
[[ "$dir" != *[$'\r\n']* ]] || config_error "the report folder '$dir' has a line break in its path"
mkdir -p "$dir" || config_error "cannot create the report folder '$dir'"
dir="$(cd "$dir" && pwd)"
# Only our own files: the folder may be one the user named, or hold files of the pull request's checkout, so
# each report output names a file this run wrote or nothing.
rm -f "$dir/report.md" "$dir/report.json" "$dir/report.html" "$dir/annotations.txt" "$dir/comment.json" \
  "$dir/neuron-gate.stderr"
rm -rf "$dir/rules-at-ref"

extra=()
if [ -n "${NG_ARGS:-}" ]; then
  split="$(mktemp)"
  json split-args "$NG_ARGS" > "$split" || config_error "cannot split input args: $NG_ARGS"
  mapfile -d '' -t extra < "$split"
  rm -f "$split"
fi
if [ -n "${NG_RULES_REF:-}" ]; then
  # Under rules-ref the rules are the trusted commit's (input rules, below): a rules file in args would be
  # the checkout's, the pull request's own edit, and --rules-from would name a source that was not used.
  for arg in "${extra[@]}"; do
    case "$arg" in --rules | --rules=* | --rules-from | --rules-from=*)
      config_error "input args must not hold ${arg%%=*} while rules-ref is set ($NG_RULES_REF): give the rules file as input rules, which is read at rules-ref" ;;
    esac
  done
fi
base_args=()
if [[ "$NG_BASE" == git:* ]]; then
  # The baseline from the base's first parents only: a digest the PR stored for its own commits (custom
  # refs are writable by every collaborator) must never be its baseline (docs/user-guide.md). PATH is
  # read as neuron-gate reads it (input/git_source.cpp parse_git_spec: after the first ':' past "git:",
  # leading "./" and trailing "/" dropped), so no spelling of @merge-base goes without the base commit;
  # and the base commit is passed for every git: base (compare ignores it unless PATH is @merge-base).
  base_path="${NG_BASE#git:}"
  base_path="${base_path#*:}"
  while [[ "$base_path" == ./* ]]; do base_path="${base_path#./}"; done
  while [[ "$base_path" == */ ]]; do base_path="${base_path%/}"; done
  base_commit="${NG_BASE_COMMIT:-}"
  [ -n "$base_commit" ] || [ "$base_path" != "@merge-base" ] ||
    config_error "a stored baseline (base $NG_BASE) needs input base-commit (the pull request's base commit, set by default on pull_request events)"
  if [ -n "$base_commit" ]; then
    [[ "$base_commit" =~ ^[0-9A-Za-z._/-]+$ && "$base_commit" != -* ]] ||
      config_error "input base-commit must be a commit or ref, not '$base_commit'"
    base_args=(--base-commit "$base_commit")
  fi
fi
rules=()
if [ -n "${NG_RULES:-}" ] && [ -n "${NG_RULES_REF:-}" ]; then
  # The rules of a trusted commit (the base), never the pull request's own edit of them.
  ref="$NG_RULES_REF"
  [[ "$ref" =~ ^[0-9A-Za-z._/-]+$ && "$ref" != -* ]] || config_error "input rules-ref must be a commit or ref, not '$ref'"
  git rev-parse --is-inside-work-tree > /dev/null 2>&1 ||
    config_error "input rules-ref ($ref) needs the workspace to be a git checkout (actions/checkout) to read $NG_RULES there"
  if ! git cat-file -e "$ref^{commit}" 2> /dev/null; then
    # actions/checkout fetches one commit by default: get the base too.
    git fetch --no-tags --depth=1 origin "$ref" > /dev/null 2>&1 ||
      config_error "cannot find or fetch commit $ref (input rules-ref) to read $NG_RULES from it"
    ref=FETCH_HEAD
  fi
  commit="$(git rev-parse --verify --quiet "$ref^{commit}")" || config_error "input rules-ref $ref is not a commit"
  if git cat-file -e "$commit:./$NG_RULES" 2> /dev/null; then
    mkdir -p "$dir/rules-at-ref"
    git show "$commit:./$NG_RULES" > "$dir/rules-at-ref/$(basename "$NG_RULES")" ||
      config_error "cannot read $NG_RULES at $commit"
    rules=(--rules "$dir/rules-at-ref/$(basename "$NG_RULES")" --rules-from "$NG_RULES at commit $commit")
    if [ -f "$NG_RULES" ] && ! cmp -s "$NG_RULES" "$dir/rules-at-ref/$(basename "$NG_RULES")"; then
      echo "::notice title=neuron-gate rules::$(workflow_data "$NG_RULES") differs from its version at $commit (rules-ref); that version is used, so a change to the rules takes effect once merged"
    fi
  else
    rules=(--rules-from "built-in rules: $NG_RULES does not exist at commit $commit")
    echo "::warning title=neuron-gate rules::$(workflow_data "$NG_RULES") does not exist at $commit (rules-ref); the compiled-in rules are used"
  fi
elif [ -n "${NG_RULES:-}" ]; then
  rules=(--rules "$NG_RULES")
fi

command_line=("$NG_BINARY" compare "$NG_BASE" "$NG_HEAD" "${base_args[@]}" "${rules[@]}" "${extra[@]}" "${key_args[@]}"
              --json "$dir/report.json" --markdown "$dir/report.md" --html "$dir/report.html"
              --annotations "$dir/annotations.txt")
# The command line holds the inputs, and neuron-gate's messages the names of files and ops (escaped by
# neuron-gate, but a command-line parser's message quotes an argument as it is): data, never commands.
printf 'neuron-gate: %s\n' "${command_line[*]}" | log_data
"${command_line[@]}" 2> "$dir/neuron-gate.stderr"
code=$?
log_data < "$dir/neuron-gate.stderr" >&2
# compare writes report.json whenever it compares (--json is always given): exit code 0 without one is no
# comparison at all (--help or -h in args prints the usage and exits 0), so it is never a pass.
if [ "$code" -eq 0 ] && [ ! -s "$dir/report.json" ]; then
  echo "::error title=neuron-gate action::neuron-gate exited 0 but wrote no report (does input args hold --help or -h?): nothing was compared, so this is an error (exit code 2)"
  printf '%s\n' "neuron-gate exited 0 but wrote no report.json: nothing was compared (input args: $(workflow_data "${NG_ARGS:-}"))" \
    >> "$dir/neuron-gate.stderr"
  rm -f "$dir/report.md" "$dir/report.html" "$dir/annotations.txt"
  code=2
fi

if [ ! -s "$dir/report.md" ]; then
  json fallback-markdown "$dir/neuron-gate.stderr" "$code" "$dir/report.md"
fi
verdict="$(json verdict "$code" "$dir/report.json")"
regressions="$(json regressions "$dir/report.json")"
report_json=""
[ ! -s "$dir/report.json" ] || report_json="$dir/report.json"
report_html=""
[ ! -s "$dir/report.html" ] || report_html="$dir/report.html"
# $dir is an input: data (a `##[...]` in it would be a command anywhere in the line).
echo "neuron-gate: exit code $code ($verdict), $regressions gating regression(s); reports in $dir" | log_data

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  { cat "$dir/report.md"; echo; } >> "$GITHUB_STEP_SUMMARY"
fi
outputs="verdict=$verdict
exit-code=$code
regressions=$regressions
report-markdown=$dir/report.md
report-json=$report_json
report-html=$report_html
report-dir=$dir"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf '%s\n' "$outputs" >> "$GITHUB_OUTPUT"
else
  printf '%s\n' "$outputs"
fi

# The annotations are neuron-gate's own file (errors for gating regressions, warnings for non-gating
# ones, one error for a usage or input error). Without it (a command line neuron-gate refused before
# comparing, or a crash) one error with the exit code points at the log.
if [ -f "$dir/annotations.txt" ]; then
  cat "$dir/annotations.txt"
elif [ "$code" -ne 0 ]; then
  echo "::error title=neuron-gate%3A exit code $code ($verdict)::neuron-gate wrote no annotations; its message is in the log above"
fi

json write-meta "$dir/comment.json" "$code" "$verdict" "$comment_key"
case "$comment" in
  never) echo "neuron-gate: comment: never; no PR comment" ;;
  artifact-only)
    echo "neuron-gate: comment: artifact-only; upload $dir as an artifact for post-comment/action.yml" | log_data ;;
  always | on-change)
    if ! bash "$here/comment.sh" --report-dir "$dir" --mode "$comment"; then
      echo "::warning title=neuron-gate comment::the PR comment could not be posted (see the log above). A pull request from a fork gets a read-only token: use comment: artifact-only with post-comment/action.yml in a workflow_run job; otherwise grant the job 'pull-requests: write'."
    fi ;;
esac

if [ "$fail_on" = "never" ]; then
  [ "$code" -eq 0 ] || echo "neuron-gate: exit code $code ($verdict); fail-on: never, so the step passes"
  exit 0
fi
[ "$code" -eq 0 ] || echo "neuron-gate: exit code $code ($verdict); fail-on: regression, so the step fails"
exit "$code"
