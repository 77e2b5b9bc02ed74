"""No submission's name takes the place of a file the batch or the documented merge writes into `--out`.

A submission handed in as `junit.xml.ipynb` was named `junit.xml` inside the out dir: the documented
merge (`autograder merge ... --out results --junit-xml results/junit.xml`) then found a directory where
it writes the JUnit file and exited 2 without it. Now every name the batch and merge write at the top
of `--out` is reserved (a submission named so gets another name), and the JUnit writer, like the out
dir's own writers, moves a directory in its place aside instead of failing.
"""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET

from conftest import REPO, course_config, run_cli

from autograder.reports import junit_xml
from autograder.reports.out_dir import RESERVED_NAMES

ASSIGNMENT = "01_immutable_updates"
SOLUTION = REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"


def test_a_submission_named_like_the_junit_file_leaves_the_documented_merge_whole(tmp_path):
    (tmp_path / "course").mkdir()
    config = course_config(tmp_path / "course", (REPO / "grading.toml").read_text())
    klass = tmp_path / "class"
    klass.mkdir()
    shutil.copy(SOLUTION, klass / "junit.xml.ipynb")
    shutil.copy(SOLUTION, klass / f"ana_{ASSIGNMENT}.ipynb")  # an honest classmate
    graded = run_cli("--config", str(config), "grade", str(klass), "--out", str(tmp_path / "shard-0"), "--seed", "7",
                     "--assignment", ASSIGNMENT, "--shard", "0/1")
    assert graded.returncode == 0, graded.stderr[-3000:]
    results = tmp_path / "results"
    merged = run_cli("--config", str(config), "merge", str(tmp_path / "shard-0"), "--out", str(results),
                     "--junit-xml", str(results / "junit.xml"))
    assert merged.returncode == 0, merged.stderr[-3000:]
    suites = ET.parse(results / "junit.xml").getroot().findall("testsuite")
    assert len(suites) == 2
    assert sorted(path.parent.name for path in results.glob("*/results.json"))[0] != "junit.xml"
    rows = (results / "grades.csv").read_text().splitlines()[1:]
    assert len(rows) == 2 and all(",18," in row or row.endswith(",18") or ",18.0," in row for row in rows), rows


def test_every_file_written_at_the_top_of_the_out_dir_is_reserved():
    assert {"grades.csv", "report.html", "shard.json", "junit.xml"} <= RESERVED_NAMES


def test_the_junit_file_moves_a_directory_in_its_place_aside(tmp_path, capsys):
    occupied = tmp_path / "results" / "junit.xml"
    occupied.mkdir(parents=True)
    (occupied / "results.json").write_text("{}")
    junit_xml.write([], occupied)
    assert ET.parse(occupied).getroot().tag == "testsuites"
    [aside] = [p for p in occupied.parent.iterdir() if p.name.startswith(".junit.xml.replaced-")]
    assert (aside / "results.json").read_text() == "{}", "what was there is kept, under another name"
    assert "moved it aside" in capsys.readouterr().err


def test_a_junit_file_inside_out_under_another_name_is_refused_before_anything_runs(tmp_path):
    """`report.xml.ipynb` would be named `report.xml` in --out: a JUnit path there under a name that is not
    reserved is refused with one sentence (exit 2, nothing graded); junit.xml and paths outside --out are kept."""
    from autograder.cli import _junit_xml_among_submissions

    out = tmp_path / "results"
    for refused in (out / "report.xml", out / "reports" / "junit.xml"):
        sentence = _junit_xml_among_submissions(refused, out)
        assert sentence and "junit.xml" in sentence and str(refused) in sentence, sentence
    for kept in (out / "junit.xml", tmp_path / "report.xml", None):
        assert _junit_xml_among_submissions(kept, out) is None
    klass = tmp_path / "class"
    klass.mkdir()
    shutil.copy(SOLUTION, klass / "report.xml.ipynb")
    graded = run_cli("grade", str(klass), "--out", str(out), "--seed", "7", "--assignment", ASSIGNMENT,
                     "--junit-xml", str(out / "report.xml"))
    assert graded.returncode == 2 and "--junit-xml" in graded.stderr and not out.exists(), graded.stderr[-2000:]
    merged = run_cli("merge", str(tmp_path / "shard-0"), "--out", str(out), "--junit-xml", str(out / "report.xml"))
    assert merged.returncode == 2 and "--junit-xml" in merged.stderr, merged.stderr[-2000:]
