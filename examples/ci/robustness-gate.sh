#!/usr/bin/env bash
# The robustness gate's CI step (textattack-so check, docs/guide/ci-gate.md): the same commands in the
# GitHub Actions workflow and the GitLab CI job beside this file. Copy it into your repository.
#
#   ROBUSTNESS_ROLE=baseline  on the default branch: judge against the previous baseline when there is
#                             one, then write this run as the new baseline (the job keeps it as an artefact);
#   ROBUSTNESS_ROLE=check     elsewhere (pull / merge requests): judge against the default branch's baseline.
#
# ROBUSTNESS_CONFIG (robustness.toml), ROBUSTNESS_RESULTS (results/check: keep it in the CI cache, so a
# re-run recomputes only the checks whose model, data or settings changed) and ROBUSTNESS_BASELINE
# (baseline/results.json: where the job restores the default branch's baseline artefact).
# Exit code: the gate's (0 pass, 1 a check fails, 2 a bad config or baseline, 3 not comparable).
set -uo pipefail
config=${ROBUSTNESS_CONFIG:-robustness.toml}
results=${ROBUSTNESS_RESULTS:-results/check}
baseline=${ROBUSTNESS_BASELINE:-baseline/results.json}
role=${ROBUSTNESS_ROLE:-check}
args=(check "$config" --out "$results")
if [ "$role" = baseline ]; then
  if [ -f "$baseline" ]; then
    args+=(--baseline "$baseline" --accept)
  else
    args+=(--update-baseline "$baseline")
  fi
elif [ -f "$baseline" ]; then
  args+=(--baseline "$baseline")
else
  echo "robustness gate: no baseline at $baseline (the default branch has not run the gate yet): thresholds only" >&2
fi
rm -f "$results/summary.md" # the cached folder's old summary is never shown for this run
echo "+ textattack-so ${args[*]}"
textattack-so "${args[@]}"
status=$?
# the short summary on the job's page (GitHub); GitLab keeps summary.md as an artefact
if [ -n "${GITHUB_STEP_SUMMARY:-}" ] && [ -f "$results/summary.md" ]; then
  cat "$results/summary.md" >>"$GITHUB_STEP_SUMMARY"
fi
exit "$status"
