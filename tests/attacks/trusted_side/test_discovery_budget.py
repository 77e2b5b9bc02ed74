"""Choosing among one student's files costs the batch parent a small fixed budget, however many she hands in.

Before anyone is graded, the batch parent chooses each student's file (load/submission_choice.py),
reading the metadata of her notebooks. It once read each candidate whole, up to 32 MiB, and checked
its nesting: every extra 32 MiB deeply nested notebook in one folder cost 17 to 21 s and up to 1.5 GiB
(a class of two took 93 s instead of 10 s). Now at most MAX_METADATA_READS notebooks of at most
MAX_METADATA_READ_BYTES each, MAX_METADATA_BUDGET_BYTES in all, are read per student, never through a
link; the rest are ranked by name and time. Counted here by the bytes the parent reads (no clock):
the honest classmate's notebook and the attacker's `<assignment>.ipynb` are still the ones chosen.
"""

from __future__ import annotations

import os
from pathlib import Path

import nbformat

from autograder.grade.batch import discover
from autograder.load import bounded_json, submission_choice

ASSIGNMENT = "02_where"
NESTED_BYTES = 32 << 20
EXTRA_NOTEBOOKS = 6


def _notebook(path: Path, declares: str | None = None) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1")])
    if declares:
        notebook.metadata["autograder"] = {"assignment": declares}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(nbformat.writes(notebook))


def test_many_huge_nested_notebooks_cost_one_students_budget_and_change_no_choice(tmp_path, monkeypatch):
    submitted = tmp_path / "submitted"
    _notebook(submitted / "kim" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")  # the honest classmate
    mallory = submitted / "mallory" / ASSIGNMENT
    _notebook(mallory / f"{ASSIGNMENT}.ipynb")
    nested = b"[" * (NESTED_BYTES // 2) + b"]" * (NESTED_BYTES // 2)
    for index in range(EXTRA_NOTEBOOKS):
        (mallory / f"extra_{index}.ipynb").write_bytes(nested)
    os.symlink(submitted / "kim" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", mallory / "linked.ipynb")
    read: list[int] = []  # the size of every document the parent parsed
    real_loads = bounded_json.loads

    def counted(text, **limits):
        read.append(len(text))
        return real_loads(text, **limits)

    monkeypatch.setattr(bounded_json, "loads", counted)
    items = discover([submitted], [ASSIGNMENT])
    chosen = {item.student: item.path.name for item in items}
    assert chosen == {"kim": f"{ASSIGNMENT}.ipynb", "mallory": f"{ASSIGNMENT}.ipynb"}
    assert sum(read) <= 16 << 20, f"{sum(read) >> 20} MiB parsed to choose"
    assert len(read) <= submission_choice.MAX_METADATA_READS
    assert sum(read) <= submission_choice.MAX_METADATA_BUDGET_BYTES
