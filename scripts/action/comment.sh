#!/usr/bin/env bash
# Creates or updates the ONE sticky pull-request comment holding the neuron-gate report: the comment written by
# the token's own user (`gh api user`'s login where the token may ask, else github-actions[bot], the user of
# the workflow's GITHUB_TOKEN) whose first line is the hidden marker <!-- neuron-gate -->. A comment by anyone
# else is never edited, whatever it carries. Used by the action (comment: always | on-change) and by
# post-comment/action.yml in a workflow_run job (the fork-safe second phase).
#
# Usage: comment.sh --report-dir DIR [--mode always|on-change] [--render BINARY]
#   DIR holds report.md and comment.json (written by run.sh), and report.json when neuron-gate wrote one.
#   --render: DIR came from another job (post-comment/action.yml: a pull request's artifact): its report.md
#   is never posted; BINARY (neuron-gate) renders the comment from DIR/report.json, every string in it as
#   data (`neuron-gate render`); without a report.json a fixed note is posted; a report.json that does not
#   read posts nothing and fails.
#   on-change: post only when the verdict is not pass, or update a comment that already exists (in a
#   workflow_run job, also when the run did not succeed, whatever comment.json's verdict).
# Environment: GH_TOKEN (token with pull-requests: write / issues: write), GITHUB_REPOSITORY (owner/repo),
#   GITHUB_EVENT_PATH. The PR is the event's pull request; in a workflow_run event it is comment.json's
#   pr_number, used only if that PR's head commit and head repository are the workflow run's head_sha and
#   head_repository (else a warning and no comment: the PR has moved on, or the artifact names another PR,
#   perhaps one whose head is the same commit pushed to another fork).
# Writes comment-id and comment-url to $GITHUB_OUTPUT when set. Exit: 0 posted or nothing to do, 2 usage,
# else non-zero (the GitHub API failed, or comment.json is malformed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
json() { python3 "$here/action_json.py" "$@"; }
# Prints FILE (messages that may quote the artifact: `neuron-gate render`'s on a report.json it refuses,
# comment-target's on a bad pr_number) with workflow commands off, as run.sh's log_data: this job holds the
# write token, and the runner takes `##[set-output ...]`, `##[add-mask]...`, `##[stop-commands]...` from
# ANYWHERE in a line (the legacy form), not only `::` at its start, so quoting alone does not make text data.
log_file() {
  [ -s "$1" ] || return 0
  local token
  token="$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')"
  echo "::stop-commands::neuron-gate-$token"
  cat "$1"
  [ -z "$(tail -c 1 "$1")" ] || echo # the resume line must start a line of its own
  echo "::neuron-gate-$token::"
}

report_dir="" mode="always" render=""
while [ $# -gt 0 ]; do
  case "$1" in
    --report-dir) report_dir="${2:-}"; shift 2 ;;
    --mode) mode="${2:-}"; shift 2 ;;
    --render)
      render="${2:-}"
      # Given but empty (no binary came out of the release or build step): never fall back to report.md.
      [ -n "$render" ] || { echo "comment.sh: --render needs the neuron-gate binary" >&2; exit 2; }
      shift 2 ;;
    *) echo "comment.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$mode" in always | on-change) ;; *) echo "comment.sh: --mode must be always or on-change, not '$mode'" >&2; exit 2 ;; esac
if [ -z "$report_dir" ] || [ ! -f "$report_dir/comment.json" ] || { [ -z "$render" ] && [ ! -f "$report_dir/report.md" ]; }; then
  echo "comment.sh: no report.md and comment.json in '${report_dir}'" >&2
  exit 2
fi
if [ -z "${GITHUB_REPOSITORY:-}" ]; then
  echo "comment.sh: GITHUB_REPOSITORY is not set" >&2
  exit 2
fi
repo="$GITHUB_REPOSITORY"
if ! command -v gh >/dev/null 2>&1; then
  echo "comment.sh: the GitHub CLI (gh) is not installed (GitHub's runners have it; on Debian: apt-get install gh)" >&2
  exit 1
fi
if [ -n "${GITHUB_SERVER_URL:-}" ] && [ -z "${GH_HOST:-}" ]; then
  host="${GITHUB_SERVER_URL#*://}"
  export GH_HOST="${host%%/*}"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

status=0
json comment-target "$report_dir" > "$work/target" 2> "$work/target.stderr" || status=$?
log_file "$work/target.stderr" >&2
if [ "$status" -ne 0 ] || ! read -r pr verify_sha verdict run_id conclusion verify_repo < "$work/target"; then
  echo "comment.sh: cannot tell which pull request to comment on" >&2
  exit 1
fi
if [ "$pr" = "-" ]; then
  echo "comment.sh: the event is not a pull request; no comment"
  exit 0
fi

if [ "$verify_sha" != "-" ]; then
  gh api "repos/$repo/pulls/$pr" > "$work/pull.json"
  actual_sha="$(json get "$work/pull.json" head.sha)"
  if [ "$actual_sha" != "$verify_sha" ]; then
    # A newer push (its own run will comment), or an artifact naming another PR: either way, not this one.
    echo "::warning title=neuron-gate comment::pull request #$pr has head ${actual_sha:-?}, not the commit $verify_sha this report is for; no comment"
    exit 0
  fi
  actual_repo="$(json get "$work/pull.json" head.repo.full_name)"
  if [ "$actual_repo" != "$verify_repo" ]; then
    # The same commit can be pushed to any fork: the run must have built this PR's own head repository.
    echo "::warning title=neuron-gate comment::pull request #$pr comes from ${actual_repo:-a deleted repository}, not $verify_repo whose run made this report; no comment"
    exit 0
  fi
fi

# Who we are: a personal or app user token may read /user; the workflow's GITHUB_TOKEN may not (HTTP 403)
# and writes as github-actions[bot].
login=""
if gh api user > "$work/user.json" 2> /dev/null; then
  login="$(json get "$work/user.json" login)"
fi
login="${login:-github-actions[bot]}"
gh api --paginate "repos/$repo/issues/$pr/comments?per_page=100" > "$work/comments.json"
# The comment key travels in comment.json (an artifact in a workflow_run job): checked again here.
comment_key="$(json get "$report_dir/comment.json" comment_key)"
json check-key "$comment_key" || { echo "comment.sh: invalid comment_key in comment.json" >&2; exit 1; }
existing="$(json find-comment "$work/comments.json" "$login" "$comment_key")"

# The verdict of a workflow_run job's artifact is the pull request's word: a run that did not succeed is a
# change whatever it says.
if [ "$mode" = "on-change" ] && [ "$verdict" = "pass" ] && [ -z "$existing" ] &&
  { [ "$verify_sha" = "-" ] || [ "$conclusion" = "success" ]; }; then
  echo "comment.sh: verdict pass and no earlier neuron-gate comment on #$pr; nothing posted (comment: on-change)"
  exit 0
fi

markdown="$report_dir/report.md"
if [ -n "$render" ]; then
  markdown="$work/report.md"
  if [ -f "$report_dir/report.json" ]; then
    status=0
    "$render" render "$report_dir/report.json" --markdown "$markdown" ${comment_key:+--comment-key "$comment_key"} \
      2> "$work/render.stderr" || status=$?
    log_file "$work/render.stderr" >&2
    if [ "$status" -ne 0 ]; then
      echo "::error title=neuron-gate comment::the artifact's report.json does not read as a neuron-gate report (see the message above); nothing posted"
      exit 1
    fi
  else
    exit_code="$(json get "$report_dir/comment.json" exit_code | tr -cd '0-9' | head -c 3)"
    printf '## neuron-gate: no report\n\nneuron-gate wrote no report in the pull request'"'"'s workflow run%s; its log says why.\n' \
      "${exit_code:+ (exit code $exit_code)}" > "$markdown"
  fi
fi

note=""
if [ "$verify_sha" != "-" ]; then
  # post-comment/action.yml in a workflow_run job: say where the report came from.
  # The run and its conclusion are the event's (GitHub's word), not the artifact's: an artifact is the pull
  # request's to write, so one that reads as a pass from a run that failed must not stand alone.
  [ "$run_id" != "-" ] || run_id=""
  note="*Posted by a \`workflow_run\` job from the report artifact of the pull request's workflow run${run_id:+ $run_id} (commit \`${verify_sha:0:12}\`), which concluded \`$conclusion\`; the comparison ran there, with that run's permissions. That run used the pull request's own copy of the workflow, so this report and that conclusion are the pull request's to write: nothing here recomputed them.*"
  if [ "$conclusion" != "success" ]; then
    # Whatever the report says (it may read as a pass): the verdict that counts is the run's.
    note="> [!WARNING]
> **The pull request's workflow run${run_id:+ $run_id} concluded \`$conclusion\`.** Its checks, not this comment, are the gate's result: a report that reads as a pass from a run that did not succeed is another job's failure, or not what the gate wrote.

$note"
  fi
fi
json comment-body "$markdown" "$work/body.json" "$note" "$comment_key"
if [ -n "$existing" ]; then
  gh api --method PATCH "repos/$repo/issues/comments/$existing" --input "$work/body.json" > "$work/response.json"
  action="updated"
else
  gh api --method POST "repos/$repo/issues/$pr/comments" --input "$work/body.json" > "$work/response.json"
  action="created"
fi
id="$(json get "$work/response.json" id)"
url="$(json get "$work/response.json" html_url)"
echo "comment.sh: $action the neuron-gate comment on #$pr as $login${url:+: $url}"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'comment-id=%s\ncomment-url=%s\n' "$id" "$url" >> "$GITHUB_OUTPUT"
fi
