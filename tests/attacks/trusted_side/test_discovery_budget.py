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
from autograder.load import bounded_json, bounded_walk, submission_choice

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


# Listing one student's folder is bounded too: before, `Path.rglob` listed all of it, however large or deep,
# before the layout said whose folder it was. Counted by the names the parent's walk reads (no clock).


def _counting_scandir(monkeypatch) -> list[str]:
    """Patch the walk's os.scandir so that every name it yields is recorded; returns the record."""
    seen: list[str] = []
    real_scandir = os.scandir

    class Counted:
        def __init__(self, path):
            self.inner = real_scandir(path)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.inner.close()

        def __iter__(self):
            for entry in self.inner:
                seen.append(entry.path)
                yield entry

    monkeypatch.setattr(bounded_walk.os, "scandir", Counted)
    return seen


def test_a_folder_of_many_files_costs_its_own_students_budget_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(bounded_walk, "NAMES_PER_STUDENT", 300)
    submitted = tmp_path / "submitted"
    _notebook(submitted / "kim" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    mallory = submitted / "mallory" / ASSIGNMENT
    _notebook(mallory / f"{ASSIGNMENT}.ipynb")
    for index in range(3000):
        (mallory / f"junk_{index:05}.txt").touch()
    seen = _counting_scandir(monkeypatch)
    items = {item.student: item for item in discover([submitted], [ASSIGNMENT])}
    assert sorted(items) == ["kim", "mallory"]  # every student keeps a row
    assert items["kim"].path.name == f"{ASSIGNMENT}.ipynb" and items["kim"].notes == ()
    assert any("Only part of" in note and "mallory" in note for note in items["mallory"].notes), \
        items["mallory"].notes
    in_mallorys = [path for path in seen if f"{os.sep}mallory{os.sep}" in path]
    assert len(in_mallorys) <= 300 + 1, f"{len(in_mallorys)} names of one student's folder listed"


def test_folders_nested_past_the_depth_are_not_entered(tmp_path, monkeypatch):
    submitted = tmp_path / "submitted"
    _notebook(submitted / "kim" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    deep = submitted / "mallory" / ASSIGNMENT
    _notebook(deep / f"{ASSIGNMENT}.ipynb")
    for _ in range(bounded_walk.FOLDERS_DEEP_PER_STUDENT + 20):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "hidden.ipynb").write_text("{}")
    seen = _counting_scandir(monkeypatch)
    items = {item.student: item for item in discover([submitted], [ASSIGNMENT])}
    assert items["mallory"].path.name == f"{ASSIGNMENT}.ipynb"
    assert any("Only part of" in note for note in items["mallory"].notes)
    assert max(Path(path).parts.count("d") for path in seen) <= bounded_walk.FOLDERS_DEEP_PER_STUDENT
    assert items["kim"].notes == ()


def test_a_link_to_a_folder_is_a_name_never_entered(tmp_path, monkeypatch):
    submitted = tmp_path / "submitted"
    kim = submitted / "kim" / ASSIGNMENT
    _notebook(kim / f"{ASSIGNMENT}.ipynb")
    secret = tmp_path / "outside"
    _notebook(secret / "answers.ipynb")
    mallory = submitted / "mallory" / ASSIGNMENT
    _notebook(mallory / f"{ASSIGNMENT}.ipynb")
    os.symlink(secret, mallory / "linked_folder")
    os.symlink(kim, mallory / "classmate")
    seen = _counting_scandir(monkeypatch)
    items = {item.student: item for item in discover([submitted], [ASSIGNMENT])}
    assert items["mallory"].path == mallory / f"{ASSIGNMENT}.ipynb"
    assert not any("linked_folder" + os.sep in path or "classmate" + os.sep in path for path in seen)
    assert items["mallory"].notes == () and items["kim"].notes == ()
