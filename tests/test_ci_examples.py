"""The example CI jobs (examples/ci/, docs/design/gate.md): their gate step run in order on tiny models, as the
default branch and two pull requests would run it, and the workflow files wired to the same paths."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO
from test_check_baseline import STURDY
from test_check_gate import FRAGILE, fragile_checks, make_setup, write_config

CI = REPO / "examples" / "ci"
ENV = {
    "ROBUSTNESS_CONFIG": "robustness.toml",
    "ROBUSTNESS_RESULTS": "results/check",
    "ROBUSTNESS_BASELINE": "baseline/results.json",
}


def job(repo, role, summary):
    """The gate step of the job (robustness-gate.sh), as the workflows call it."""
    env = dict(os.environ, **ENV, ROBUSTNESS_ROLE=role, GITHUB_STEP_SUMMARY=str(summary))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"  # textattack-so of this environment
    return subprocess.run(
        ["bash", "robustness-gate.sh"], cwd=repo, env=env, capture_output=True, text=True, timeout=600
    )


STUB = """#!/usr/bin/env bash
echo "ARGS $*"
if [ -n "${STUB_SUMMARY:-}" ]; then mkdir -p results/check && echo "$STUB_SUMMARY" > results/check/summary.md; fi
exit "${STUB_EXIT:-0}"
"""


def stub_job(tmp_path, role, baseline=False, code=0, summary_text="### gate PASS"):
    """robustness-gate.sh with a stand-in ``textattack-so`` that prints its arguments (no TextAttack import)."""
    repo = tmp_path / role / str(baseline)
    (repo / "bin").mkdir(parents=True)
    (repo / "bin" / "textattack-so").write_text(STUB)
    (repo / "bin" / "textattack-so").chmod(0o755)
    shutil.copy(CI / "robustness-gate.sh", repo)
    (repo / "results" / "check").mkdir(parents=True)
    (repo / "results" / "check" / "summary.md").write_text("### an earlier run's summary")
    if baseline:
        (repo / "baseline").mkdir()
        (repo / "baseline" / "results.json").write_text("{}")
    summary = repo / "step_summary.md"
    env = dict(os.environ, **ENV, ROBUSTNESS_ROLE=role, GITHUB_STEP_SUMMARY=str(summary), STUB_EXIT=str(code))
    env["STUB_SUMMARY"] = summary_text
    env["PATH"] = f"{repo / 'bin'}{os.pathsep}{env['PATH']}"
    p = subprocess.run(["bash", "robustness-gate.sh"], cwd=repo, env=env, capture_output=True, text=True, timeout=60)
    return p, (summary.read_text() if summary.exists() else "")


def test_gate_script_gives_each_role_its_baseline_arguments_and_passes_on_the_exit_code(tmp_path):
    """The script's own logic, in seconds (the real three-run sequence below is slow: three TextAttack starts)."""
    first, summary = stub_job(tmp_path, "baseline")
    assert first.returncode == 0
    assert "ARGS check robustness.toml --out results/check --update-baseline baseline/results.json" in first.stdout
    assert summary.strip() == "### gate PASS"  # this run's summary, never the cached folder's old one
    again, _ = stub_job(tmp_path, "baseline", baseline=True)
    assert "--baseline baseline/results.json --accept" in again.stdout
    pr, summary = stub_job(tmp_path, "check", baseline=True, code=1, summary_text="### gate FAIL")
    assert pr.returncode == 1 and "ARGS check robustness.toml --out results/check --baseline baseline/results.json" in (
        pr.stdout
    )
    assert "--accept" not in pr.stdout and "FAIL" in summary
    first_pr, summary = stub_job(tmp_path, "check", code=0, summary_text="")
    assert "--baseline" not in first_pr.stdout and "thresholds only" in first_pr.stderr
    assert "earlier run" not in summary


@pytest.mark.slow
def test_baseline_then_a_weakened_model_fails_then_the_same_model_passes_reusing_everything(tmp_path):
    repo = make_setup(tmp_path)
    shutil.copy(CI / "robustness-gate.sh", repo)
    (repo / "victim.py").write_text(STURDY)  # model A
    write_config(repo, model="victim.py", checks=fragile_checks(repo, so_threshold=100.0)).rename(
        repo / "robustness.toml"
    )
    summary = tmp_path / "step_summary.md"
    # 1. the default branch: no baseline yet; the run is written as the baseline (the job's artefact)
    first = job(repo, "baseline", summary)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "--update-baseline baseline/results.json" in first.stdout
    assert (repo / "baseline" / "results.json").exists()
    artefact = tmp_path / "artefact.json"
    shutil.copy(repo / "baseline" / "results.json", artefact)
    # 2. a pull request that weakens the model: the baseline restored from the artefact, the gate fails
    shutil.rmtree(repo / "baseline")
    (repo / "baseline").mkdir()
    shutil.copy(artefact, repo / "baseline" / "results.json")
    (repo / "victim.py").write_text(FRAGILE)  # model B
    second = job(repo, "check", summary)
    assert second.returncode == 1, second.stdout + second.stderr
    assert "--baseline baseline/results.json" in second.stdout
    assert "1 passed, 2 failed (so, typos)" in second.stdout
    assert (
        "so: vulnerable_rate = 100 is worse than the baseline 0 by 100, more than the default tolerance 5"
        in second.stdout
    )
    assert "FAIL" in summary.read_text().split("### ")[-1].splitlines()[0]  # the step summary of this run
    # 3. the pull request goes back to model A: green, every finished check reused from the cached folder
    (repo / "victim.py").write_text(STURDY)
    third = job(repo, "check", summary)
    assert third.returncode == 0, third.stdout + third.stderr
    assert third.stdout.count("(reused)") == 3 and "3 passed, 0 failed" in third.stdout
    assert "evaluating" not in third.stdout
    assert "PASS" in summary.read_text().split("### ")[-1].splitlines()[0]


def test_the_workflows_restore_the_baseline_run_the_gate_and_publish_junit_and_the_summary():
    yaml = pytest.importorskip("yaml")
    gh = yaml.safe_load((CI / "github-robustness.yml").read_text())
    steps = gh["jobs"]["robustness"]["steps"]
    env = gh["jobs"]["robustness"]["env"]
    assert {k: env[k] for k in ENV} == ENV
    runs = [s.get("run", "") for s in steps]
    uses = {s.get("uses", "").split("@")[0]: s for s in steps if "uses" in s}
    # order: cache and baseline restored, then the gate, then JUnit, comment and artefacts
    gate = next(i for i, r in enumerate(runs) if "bash robustness-gate.sh" in r)
    restore = next(i for i, r in enumerate(runs) if "gh run download" in r)
    cache = next(i for i, s in enumerate(steps) if s.get("uses", "").startswith("actions/cache@"))
    assert cache < gate and restore < gate
    assert "--name robustness-baseline --dir baseline" in runs[restore]
    assert uses["actions/cache"]["with"]["path"] == ENV["ROBUSTNESS_RESULTS"]
    assert uses["mikepenz/action-junit-report"]["with"]["report_paths"] == "results/check/junit.xml"
    assert uses["marocchino/sticky-pull-request-comment"]["with"]["path"] == "results/check/summary.md"
    uploads = {s["with"]["name"]: s["with"]["path"] for s in steps if s.get("uses", "").startswith("actions/upload")}
    assert uploads["robustness-baseline"] == ENV["ROBUSTNESS_BASELINE"]
    assert "GITHUB_STEP_SUMMARY" in (CI / "robustness-gate.sh").read_text()

    gl = yaml.safe_load((CI / "gitlab-ci.yml").read_text())["robustness"]
    assert {k: gl["variables"][k] for k in ENV} == ENV
    script = "\n".join(gl["script"])
    assert script.index("jobs/artifacts/$CI_DEFAULT_BRANCH/download") < script.index("bash robustness-gate.sh")
    assert gl["cache"]["paths"] == ["results/check/"]
    assert gl["artifacts"]["reports"]["junit"] == "results/check/junit.xml"
    assert {"baseline/results.json", "results/check/summary.md"} <= set(gl["artifacts"]["paths"])

    # the package is on no registry: both jobs install it from its repository, named once in a variable
    for spec, install in ((env, runs), (gl["variables"], gl["before_script"])):
        assert 'pip install "$TEXTATTACK_SECONDORDER"' in install
        name, _, url = spec["TEXTATTACK_SECONDORDER"].partition(" @ ")
        assert name == "textattack-secondorder[offline]" and url.startswith("git+https://")
    for text in (CI / "github-robustness.yml", CI / "gitlab-ci.yml"):
        assert "Replace OWNER" in text.read_text()  # and each file says what to replace
