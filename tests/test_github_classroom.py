"""GitHub Classroom: the workflow template, and the points its steps hand to the autograding reporter.

The workflow's Grade and Points steps run here with bash, as a runner runs
them (`bash -eo pipefail`, the workflow's env, $RUNNER_TEMP, $GITHUB_OUTPUT
and $GITHUB_ENV as files, a stand-in `sudo` since this runs as root), on a
solved and an unsolved notebook. What they leave is then read the way
classroom-resources/autograding-grading-reporter@v1 reads it: for each id in
`runners`, base64 JSON from `<ID IN CAPITALS>_RESULTS`; the points it posts
for Classroom are the sum of the tests' `score` over the sum of the
runners' `max_score`, and its log shows (passed / tests) x max_score per runner.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import run_cli

from autograder import grading_config
from autograder.integrations import github_classroom

REPO = Path(__file__).resolve().parent.parent
WORKFLOW = REPO / "autograder" / "integrations" / "github_classroom" / "classroom.yml"
ASSIGNMENT = "02_where"
# Every action the workflow uses, each checked to exist at that version: actions/checkout and
# actions/setup-python (v4, v5), and the reporter, whose v1 reads `runners` and <ID>_RESULTS.
KNOWN_ACTIONS = {"actions/checkout@v4", "actions/setup-python@v5",
                 "classroom-resources/autograding-grading-reporter@v1"}


@pytest.fixture(scope="module")
def workflow():
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def _steps(workflow):
    (job,) = workflow["jobs"].values()
    return job["steps"]


def _step(workflow, name):
    return next(step for step in _steps(workflow) if step.get("name") == name)


# --- the workflow file ------------------------------------------------------------

def test_the_workflow_parses_with_the_triggers_and_permissions_classroom_uses(workflow):
    assert workflow["name"] == "Autograding Tests"
    assert set(workflow["on"]) == {"push", "repository_dispatch", "workflow_dispatch"}  # "on", quoted, stays a key
    assert workflow["permissions"] == {"checks": "write", "actions": "read", "contents": "read"}
    assert set(workflow["env"]) == {"ASSIGNMENT", "NOTEBOOK", "KIT_REPOSITORY", "KIT_REF"}
    assert workflow["env"]["ASSIGNMENT"] in grading_config.load().assignments
    (job,) = workflow["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest" and job["if"] == "github.actor != 'github-classroom[bot]'"


def test_it_uses_only_actions_that_exist(workflow):
    used = {step["uses"] for step in _steps(workflow) if "uses" in step}
    assert used <= KNOWN_ACTIONS and "classroom-resources/autograding-grading-reporter@v1" in used
    reporter = _step(workflow, "Autograding Reporter")
    assert reporter["with"] == {"runners": "${{ steps.points.outputs.runners }}"}
    assert reporter["if"].startswith("always()")
    assert _step(workflow, "Set up Python")["with"]["python-version"] == "3.11"


def test_every_step_output_it_reads_is_written_by_a_step_with_that_id(workflow):
    text = WORKFLOW.read_text(encoding="utf-8")
    ids = {step["id"] for step in _steps(workflow) if "id" in step}
    assert set(re.findall(r"steps\.([A-Za-z0-9_-]+)\.outputs", text)) <= ids


def test_run_blocks_are_valid_bash_without_expressions(workflow, tmp_path):
    for step in _steps(workflow):
        if "run" not in step:
            continue
        assert "${{" not in step["run"], step["name"]  # values arrive as environment variables, never pasted in
        script = tmp_path / "step.sh"
        script.write_text(step["run"])
        completed = subprocess.run(["bash", "-n", str(script)], capture_output=True, text=True)
        assert completed.returncode == 0, (step["name"], completed.stderr)


def test_the_template_ships_with_the_kit():
    printed = subprocess.run([sys.executable, "-m", "autograder.integrations.github_classroom", "--print-workflow"],
                             capture_output=True, text=True, check=True).stdout
    assert printed == WORKFLOW.read_text(encoding="utf-8")
    assert "integrations/github_classroom/*" in (REPO / "pyproject.toml").read_text()  # in the wheel too


# --- running the Grade and Points steps ------------------------------------------------

def _read_key_values(path: Path) -> dict[str, str]:
    """$GITHUB_OUTPUT / $GITHUB_ENV as GitHub reads them (`name=value` lines; no multi-line values here)."""
    pairs = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        name, separator, value = line.partition("=")
        assert separator and "<<" not in name, line
        pairs[name] = value
    return pairs


def _reporter(runners_input: str, environment: dict[str, str]) -> dict:
    """What the reporter (v1) computes from its input and environment."""
    runners = []
    for runner in runners_input.split(","):
        results = json.loads(base64.b64decode(environment[f"{runner.strip().upper()}_RESULTS"]).decode("utf-8"))
        runners.append((runner, results))
    total = maximum = 0.0
    logged = 0.0
    for _, results in runners:
        assert results["version"] == 1 and results["status"] in ("pass", "fail", "error")
        for test in results["tests"]:
            assert set(test) >= {"name", "status", "score", "message", "line_no"}
        if results["max_score"]:
            maximum += results["max_score"]
            total += sum(test["score"] for test in results["tests"])
        passed = sum(1 for test in results["tests"] if test["status"] == "pass")
        logged += passed / len(results["tests"]) * (results["max_score"] or 0)
    failed = any(r["status"] == "fail" for _, r in runners) or any(r["status"] == "error" for _, r in runners)
    return {"points": f"Points {total:g}/{maximum:g}", "logged": logged, "total": total, "failed": failed,
            "runners": runners}


def _run_steps(workflow, tmp_path: Path, notebook: Path, course: Path = REPO) -> tuple[dict, dict, str]:
    """The Grade and Points steps in a fresh workspace holding `notebook`, with `course` checked out as the grader's
    checkout (the kit's repository, or a course directory of one's own).

    Returns ($GITHUB_OUTPUT, $GITHUB_ENV, summary).
    """
    workspace, runner_temp, bin_dir = tmp_path / "workspace", tmp_path / "runner-temp", tmp_path / "bin"
    for directory in (workspace, runner_temp / "venv" / "bin", bin_dir):
        directory.mkdir(parents=True)
    (workspace / workflow["env"]["NOTEBOOK"]).write_bytes(notebook.read_bytes())
    (workspace / ".autograder-kit").symlink_to(course)  # the grader's checkout
    for path, body in ((runner_temp / "venv" / "bin" / "python", f'exec {sys.executable} "$@"'),  # the installed venv
                       (bin_dir / "python", f'exec {sys.executable} "$@"'),  # setup-python's
                       (bin_dir / "sudo", 'exec "$@"')):  # root already
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    files = {name: tmp_path / name.lower() for name in ("GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_STEP_SUMMARY")}
    for file in files.values():
        file.touch()
    environment = {key: value for key, value in os.environ.items() if not key.startswith(("GITHUB_", "AUTOGRADER_"))}
    environment.update(workflow["env"], RUNNER_TEMP=str(runner_temp), PATH=f"{bin_dir}:{environment['PATH']}",
                       **{name: str(path) for name, path in files.items()})
    environment.pop("PYTHONPATH", None)
    for name in ("Grade", "Points"):
        completed = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                                    _step(workflow, name)["run"]], cwd=workspace, env=environment,
                                   capture_output=True, text=True, timeout=900)
        assert completed.returncode == 0, (name, completed.stdout[-2000:], completed.stderr[-3000:])
    return (_read_key_values(files["GITHUB_OUTPUT"]), _read_key_values(files["GITHUB_ENV"]),
            files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def os_sandbox():
    from autograder.sandbox import os_isolation

    try:
        os_isolation.check_available(sys.executable)
    except os_isolation.IsolationUnavailable as error:
        pytest.skip(f"the workflow's Grade step uses the OS sandbox, which is unavailable here: {error}")


def test_a_solved_notebook_reports_full_points(workflow, tmp_path, os_sandbox):
    outputs, environment, summary = _run_steps(workflow, tmp_path,
                                               REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    total = grading_config.load().assignment_total(ASSIGNMENT)
    report = _reporter(outputs["runners"], environment)
    assert report["points"] == f"Points {total:g}/{total:g}" and outputs["points"] == f"{total:g}/{total:g}"
    assert report["logged"] == report["total"] and not report["failed"]
    checks = sum(len(p) for p in grading_config.load().points[ASSIGNMENT].values())
    assert len(report["runners"]) == checks and all(re.fullmatch(r"[a-z0-9]+", r) for r, _ in report["runners"])
    single = json.loads(base64.b64decode(outputs["result"]))
    assert single["max_score"] == total and sum(t["score"] for t in single["tests"]) == total
    assert f"### Autograding: {total:g} / {total:g} points" in summary


def test_a_course_directory_of_ones_own_as_the_checkout_reports_full_points(workflow, tmp_path, os_sandbox):
    """A course's repository holding no kit (`autograder init-course`): its grading.toml grades, and the kit
    installed in the venv reports (the workflow's Points step runs it when the checkout has no kit)."""
    course = tmp_path / "course-repository"
    assert run_cli("init-course", str(course), cwd=tmp_path).returncode == 0
    assert not (course / "autograder").exists()
    outputs, environment, _ = _run_steps(workflow, tmp_path, course / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
                                         course=course)
    total = grading_config.load(course / "grading.toml").assignment_total(ASSIGNMENT)
    assert outputs["points"] == f"{total:g}/{total:g}"
    assert _reporter(outputs["runners"], environment)["points"] == f"Points {total:g}/{total:g}"


def test_an_unsolved_notebook_reports_zero_with_feedback(workflow, tmp_path, os_sandbox):
    outputs, environment, summary = _run_steps(workflow, tmp_path,
                                               REPO / "assignments" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    total = grading_config.load().assignment_total(ASSIGNMENT)
    report = _reporter(outputs["runners"], environment)
    assert report["points"] == f"Points 0/{total:g}" and report["failed"]
    for _, result in report["runners"]:
        assert result["status"] == "fail" and "not implemented" in result["tests"][0]["message"], result
    assert "#### Feedback" in summary and "not implemented" in summary


def test_partial_credit_adds_up_the_same_in_the_log_and_in_classroom(tmp_path):
    graded = {"score": 3.0, "output": "", "extra_data": {"submission": "s", "max_score": 6.0}, "tests": [
        {"name": "f: correct", "score": 2, "max_score": 2, "status": "passed", "output": ""},
        {"name": "f: jittable", "score": 0, "max_score": 3, "status": "failed", "output": "x" * 5000},
        {"name": "g: correct", "score": 1, "max_score": 1, "status": "passed", "output": ""}]}
    runners = github_classroom.runner_results([graded])
    environment = {github_classroom.environment_name(r): github_classroom.encode(j) for r, j in runners}
    report = _reporter(",".join(r for r, _ in runners), environment)
    assert report["points"] == "Points 3/6" and report["logged"] == 3.0
    assert [r for r, _ in runners] == ["f1", "f2", "g1"]
    assert len(runners[1][1]["tests"][0]["message"]) == github_classroom.MESSAGE_MAX_CHARS


def test_nothing_graded_still_reports_a_zero_of_the_assignments_total(tmp_path, capsys):
    out = tmp_path / "results"  # never written: grading did not run
    code = github_classroom.main([str(out), "--assignment", ASSIGNMENT, "--github-output", str(tmp_path / "o"),
                                  "--github-env", str(tmp_path / "e"), "--summary", str(tmp_path / "s")])
    assert code == 0
    outputs, environment = _read_key_values(tmp_path / "o"), _read_key_values(tmp_path / "e")
    report = _reporter(outputs["runners"], environment)
    total = grading_config.load().assignment_total(ASSIGNMENT)
    assert outputs["runners"] == "grading" and report["points"] == f"Points 0/{total:g}"
    assert report["runners"][0][1]["status"] == "error" and report["failed"]
    assert "grading did not run" in report["runners"][0][1]["tests"][0]["message"]


def test_grader_problems_are_errors_and_several_submissions_are_told_apart():
    crashed = {"score": 0, "output": "worker died", "tests": [
        {"name": "f: correct", "score": 0, "max_score": 1, "status": "failed", "output": "worker died"}],
        "extra_data": {"submission": "a", "problem": "grader_error"}}
    fine = {"score": 1, "output": "", "tests": [
        {"name": "f: correct", "score": 1, "max_score": 1, "status": "passed", "output": ""}],
        "extra_data": {"submission": "b"}}
    runners = github_classroom.runner_results([crashed, fine])
    assert [(r, j["status"], j["tests"][0]["name"]) for r, j in runners] == [
        ("f1", "error", "a: f: correct"), ("f2", "pass", "b: f: correct")]
    assert github_classroom.combined_result(runners)["status"] == "error"
    assert github_classroom.points(runners) == (1.0, 2.0)
