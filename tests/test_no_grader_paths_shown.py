"""What students read never names the grading machine's paths.

A class is graded from a deep absolute directory (an instructor's home tree) with every kind of
submission that makes the grader talk about a file: a notebook that is not JSON, one nbformat refuses,
a file not UTF-8, a syntax error, an unknown assignment, a misplaced file, a folder with no notebook,
corpus mistakes and a solution. Every student-facing field of every output (each results.json's
output and checks, JUnit's messages and texts, Gradescope's results.json) is then searched for an
absolute path: the directory's, or any other.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
from conftest import REPO, run_cli

from autograder.integrations import gradescope_run

DEEP = "home/prof-kim/teaching/2026-spring/jax-course/grading/nbgrader-course"
SOLUTION_02 = REPO / "solutions" / "02_where" / "02_where.ipynb"
CORPUS_02 = sorted((REPO / "tests" / "corpus" / "02_where" / "mistakes").glob("*.py"))[:4]
# An absolute POSIX path of two or more parts, as a message would print one (not `a/b`, not a URL).
ABSOLUTE = re.compile(r"(?<![\w.:/])/(?:[\w.@+-]+/)+[\w.@+-]+")


def _class(root):
    submitted = root / "submitted"

    def hand_in(student, name, text):
        path = submitted / student / "02_where" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text) if isinstance(text, str) else path.write_bytes(text)

    hand_in("ana", "02_where.ipynb", SOLUTION_02.read_text())
    hand_in("kim", "02_where.ipynb", '{"cells": [ this is not json')
    hand_in("lee", "02_where.ipynb", '{"cells": "not a list", "nbformat": 4}')
    hand_in("min", "02_where.py", b"def selu(x):\n    return '\xff'\n")
    hand_in("noh", "02_where.py", "def selu(x)\n    return x\n")
    for index, mistake in enumerate(CORPUS_02):
        hand_in(f"s{index}", "02_where.py", mistake.read_text())
    (submitted / "oh" / "02_where").mkdir(parents=True)
    (submitted / "oh" / "02_where" / "answers.txt").write_text("see attached")
    (submitted / "stray_02_where.py").write_text("x = 1\n")  # in no student's folder
    return submitted


def _student_texts_of_results(data: dict) -> list[str]:
    texts = [data.get("output") or ""]
    for test in data.get("tests", []):
        texts += [test.get("name") or "", test.get("output") or ""]
    return texts


def _absolute_paths(texts: list[str]) -> list[str]:
    return [match for text in texts for match in ABSOLUTE.findall(text)]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("paths") / DEEP
    submitted = _class(root)
    out, junit = root / "out", root / "junit.xml"
    completed = run_cli("grade", str(submitted), "--out", str(out), "--seed", "7", "--assignment", "02_where",
                        "--junit-xml", str(junit))
    assert completed.returncode == 0, completed.stderr[-3000:]
    return root, out, junit


def test_no_results_json_names_a_path_of_the_grading_machine(graded):
    root, out, _ = graded
    results = sorted(out.glob("*/results.json"))
    assert len(results) >= 10
    found = {}
    for path in results:
        texts = _student_texts_of_results(json.loads(path.read_text()))
        leaked = _absolute_paths(texts) + [text for text in texts if str(root) in text]
        if leaked:
            found[path.parent.name] = leaked
    assert not found, found
    kim = json.loads((out / "kim__02_where" / "results.json").read_text())
    assert "02_where.ipynb" in kim["output"], "the student's file is named as they handed it in"
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        paths = {row["student"]: row["path"] for row in csv.DictReader(handle)}
    assert paths["kim"] == "submitted/kim/02_where/02_where.ipynb", "grades.csv: from the folder named, not absolute"


def test_no_junit_message_names_a_path_of_the_grading_machine(graded):
    root, _, junit = graded
    tree = ET.parse(junit).getroot()
    texts = [text for element in tree.iter() for text in (element.text or "", *element.attrib.values())]
    assert not _absolute_paths(texts) and not [t for t in texts if str(root) in t]


def test_gradescope_shows_no_grading_machine_path_and_starts_with_the_score(graded, tmp_path):
    root, _, _ = graded
    image = tmp_path / DEEP / "autograder"
    (image / "submission").mkdir(parents=True)
    shutil.copy(root / "submitted" / "kim" / "02_where" / "02_where.ipynb", image / "submission" / "02_where.ipynb")
    data = gradescope_run.run(image, "02_where", REPO / "grading.toml")
    texts = _student_texts_of_results(data)
    assert not _absolute_paths(texts) and not [t for t in texts if str(image) in t], texts[:3]
    assert data["output"].startswith(f"Score: 0 / {data['extra_data']['max_score']:g}"), data["output"][:200]
