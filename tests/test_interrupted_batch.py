"""Ctrl-C or SIGTERM in the middle of `autograder grade`: one sentence, the shell's status, and no out-dir
artefact that shows a submission not graded as a 0 it earned; `--resume` says why it grades each again."""

from __future__ import annotations

import csv
import json
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest
from conftest import REPO, course_config, run_cli

from autograder.catalog import messages
from autograder.reports import grade_status, grades_csv

SOLUTION_01 = REPO / "solutions" / "01_immutable_updates" / "01_immutable_updates.ipynb"
STUDENTS = ("ana", "ben", "cho", "dan", "eve", "fay", "gus", "hal")
SENTENCE = re.compile(r"Interrupted after (\d+) of (\d+); (\d+) not graded\. "
                      r"Run the same command with --resume to finish\.")


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    return course_config(tmp_path_factory.mktemp("config"), (REPO / "grading.toml").read_text())


def _interrupted_run(tmp_path, config, signum):
    """Grade eight full solutions one at a time; send `signum` as soon as the first result is finished."""
    batch = tmp_path / "batch"
    batch.mkdir()
    for student in STUDENTS:
        shutil.copy(SOLUTION_01, batch / f"{student}_01_immutable_updates.ipynb")
    out, junit = tmp_path / "out", tmp_path / "junit.xml"
    command = [sys.executable, "-m", "autograder", "--config", str(config), "grade", str(batch), "--out", str(out),
               "--seed", "7", "--jobs", "1", "--junit-xml", str(junit)]
    process = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600
    while not _finished(out) and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    process.send_signal(signum)
    stdout, stderr = process.communicate(timeout=300)
    return process.returncode, stdout, stderr, batch, out, junit


def _finished(out) -> bool:
    for path in out.glob("*/results.json"):
        try:
            if json.loads(path.read_text()).get("extra_data", {}).get("finished") is True:
                return True
        except (OSError, ValueError):
            pass
    return False


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_batch_stops_cleanly_and_marks_what_it_did_not_grade(tmp_path, config, signum, status):
    returncode, _stdout, stderr, batch, out, junit = _interrupted_run(tmp_path, config, signum)
    assert returncode == status, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]
    said = SENTENCE.search(stderr)
    assert said, stderr[-3000:]
    graded, total, not_graded = map(int, said.groups())
    assert total == len(STUDENTS) and graded + not_graded == total and graded >= 1 and not_graded >= 1, said[0]

    # grades.csv: every row of a full solution is 18 points or says it was not graded, with no score at all.
    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    assert len(rows) == total
    assert sum(1 for r in rows if r["status"] == grade_status.NOT_GRADED) == not_graded
    for row in rows:
        if row["status"] == grade_status.NOT_GRADED:
            assert (row["score"], row["passed"], row["failed"], row["reason"]) == ("", "", "", "interrupted"), row
        else:
            assert (row["status"], row["score"]) == (grade_status.GRADED, "18.0"), row

    # report.html: a banner before anything else says how many were not graded, and why.
    html = (out / "report.html").read_text(encoding="utf-8")
    banner = messages.text("batch.not_graded_banner", count=not_graded, total=total,
                           reasons=f"{not_graded} interrupted")
    assert banner in html and html.index(banner) < html.index('<section id="students">')

    # JUnit: a submission not graded is errors, never failures.
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert len(suites) == total
    assert sum(int(s.get("failures")) for s in suites) == 0
    assert sum(1 for s in suites if int(s.get("errors")) > 0) == not_graded

    # Each Gradescope results.json says the same, in extra_data and in what the student reads.
    for result in out.glob("*/results.json"):
        data = json.loads(result.read_text())
        if data["extra_data"]["status"] == grade_status.NOT_GRADED:
            assert messages.text("batch.not_graded_note") in data["output"]
            assert data["extra_data"]["problem"] == grade_status.INTERRUPTED

    # --resume grades the rest, saying why each one is graded again.
    resumed = run_cli("--config", str(config), "grade", str(batch), "--out", str(out), "--seed", "7", "--resume")
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    why = messages.text("batch.resume_reason.interrupted")
    assert resumed.stderr.count(f": {why}.") == not_graded, resumed.stderr[-3000:]
    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    assert {(r["status"], r["score"]) for r in rows} == {(grade_status.GRADED, "18.0")}
    assert 'class="banner"' not in (out / "report.html").read_text(encoding="utf-8")


def _result(status=None, problem=None, finished=True, **extra) -> dict:
    return {"score": 0.0, "output": "", "tests": [{"status": "failed", "max_score": 3, "score": 0}],
            "extra_data": {"problem": problem, "finished": finished, "path": "/home/prof/course/submitted/kim/a.ipynb",
                           **extra}}


@pytest.mark.parametrize("result, status, reason", [
    (_result(), grade_status.GRADED, ""),  # a stub's honest 0
    (_result(problem="interrupted", finished=None), grade_status.NOT_GRADED, "interrupted"),
    (_result(problem="grader_error"), grade_status.NOT_GRADED, grade_status.TOO_BUSY),
    (_result(problem="grader_error", finished=None), grade_status.NOT_GRADED, grade_status.KIT_ERROR),
    (_result(problem="no_notebook", finished=None), grade_status.NO_NOTEBOOK, "no notebook"),
    (_result(problem="unreadable"), grade_status.NEEDS_A_LOOK, "unreadable notebook"),
    (_result(identity_notes=["who?"]), grade_status.NEEDS_A_LOOK, "who handed it in"),
    (dict(_result(), output=messages.text("report.internal_error", error_type="KeyError", error="'x'")),
     grade_status.NEEDS_A_LOOK, "grader error in a check"),
])
def test_grades_csv_tells_a_real_zero_from_nothing_graded(result, status, reason):
    row = grades_csv.row(result)
    assert (row["status"], row["reason"]) == (status, reason)
    assert row["score"] == ("" if status == grade_status.NOT_GRADED else 0.0)
    assert row["path"] == "a.ipynb", "never the grading machine's absolute path"
    assert grades_csv.row(dict(result, extra_data=dict(result["extra_data"], relative_path="kim/a.ipynb")))["path"] \
        == "kim/a.ipynb"


def test_the_readme_documents_the_columns_of_grades_csv():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    documented = re.search(r"<!-- grades.csv columns -->\n(.*?)<!-- end -->", readme, re.S)
    assert documented, "README: the grades.csv schema, between the markers"
    names = re.findall(r"^\| `([a-z_]+)` \|", documented.group(1), re.M)
    assert tuple(names) == grades_csv.COLUMNS
    for status in grade_status.STATUSES:
        assert f"`{status}`" in documented.group(1)
