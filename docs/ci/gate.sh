#!/bin/sh
# webgrade's CI gate: score the pages of a pull request and of its base branch, compare the two runs, post the
# comparison as a comment and fail when a metric regressed. docs/ci.md explains it; docs/ci/webgrade.yml runs it
# on GitHub Actions. Plain POSIX sh, so any CI can run it.
#
# Usage: gate.sh <base-pages> <head-pages> [<out-dir>]
#   <base-pages>, <head-pages>  folders in `webgrade batch`'s layout: <group>/<page>.html or <group>/<page>/index.html
#   <out-dir>                   where base.jsonl, head.jsonl and comment.md go (default: webgrade-gate)
#
# Environment:
#   WEBGRADE       how to run webgrade (default: npx --no-install webgrade)
#   WEBGRADE_ARGS  options for both batches, e.g. "--only lint,console-errors,accessibility" (default: none)
#   BASE_RESULTS   a results file of the base to start from (a cache): the base batch resumes it and scores only
#                  the pages it lacks
#   POST_COMMENT   the command that posts the comment, given the Markdown file as its last argument. Default: in a
#                  GitHub pull request (GITHUB_ACTIONS and PR_NUMBER set), gh pr comment "$PR_NUMBER" --body-file;
#                  elsewhere, cat (the comment goes to the log). A comment that cannot be posted is a warning.
#
# Exit status: 0 no regression; 1 a regression (the comment says which); 2 or more: the gate itself failed
# (bad pages folder, webgrade missing), with no comment.
set -eu

[ $# -ge 2 ] || { echo "usage: gate.sh <base-pages> <head-pages> [<out-dir>]" >&2; exit 2; }
base_pages=$1
head_pages=$2
out=${3:-webgrade-gate}
webgrade=${WEBGRADE:-npx --no-install webgrade}
args=${WEBGRADE_ARGS:-}
mkdir -p "$out"

# 1. Score both sides with the same settings, on the same machine: the comparison is then fair.
if [ -n "${BASE_RESULTS:-}" ] && [ "$BASE_RESULTS" != "$out/base.jsonl" ]; then cp "$BASE_RESULTS" "$out/base.jsonl"; fi
# shellcheck disable=SC2086 # $webgrade and $args are word lists
$webgrade batch "$base_pages" --out "$out/base.jsonl" --no-evidence $args || exit 3
# shellcheck disable=SC2086
$webgrade batch "$head_pages" --out "$out/head.jsonl" --no-evidence $args || exit 3

# 2. Compare: exit 0 (nothing regressed), 1 with the comment written (a regression), anything else an error.
rm -f "$out/comment.md"
status=0
# shellcheck disable=SC2086
$webgrade compare "$out/base.jsonl" "$out/head.jsonl" --format markdown --fail-on regression --out "$out/comment.md" || status=$?
if [ "$status" -ne 0 ] && { [ "$status" -ne 1 ] || [ ! -s "$out/comment.md" ]; }; then
  echo "gate.sh: webgrade compare failed (exit $status)" >&2
  exit 3
fi

# 3. Post the comparison.
if [ -z "${POST_COMMENT:-}" ]; then
  if [ -n "${GITHUB_ACTIONS:-}" ] && [ -n "${PR_NUMBER:-}" ]; then POST_COMMENT="gh pr comment $PR_NUMBER --body-file"; else POST_COMMENT=cat; fi
fi
# shellcheck disable=SC2086
$POST_COMMENT "$out/comment.md" || echo "gate.sh: warning: the comment could not be posted ($POST_COMMENT)" >&2

[ "$status" -eq 0 ] && echo "gate.sh: no regression" >&2 || echo "gate.sh: regression: see the comment" >&2
exit "$status"
