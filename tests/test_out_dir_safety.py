"""The out dir trusts nothing it finds: `autograder grade --out DIR` with things planted in DIR and hostile file names.

Two `autograder grade` runs share one out dir. Before the first, the out dir
holds a FIFO at grades.csv.tmp and at a results.json path, a directory at a
results.json path, symbolic links leading out of it at results.json, at
grades.csv and in place of a submission's directory, and a FIFO in place of
a submission's directory; the submissions have hostile file names. Before
the second (--resume, one submission added), a finished result is replaced
by a FIFO and another by a link to a forged result. Every run has a time
limit, so a blocking open fails the tests instead of hanging them. The
out_dir module and the names are also tested directly, without JAX.
"""

from __future__ import annotations

import csv
import json
import os
import socket
import stat
import sys
import threading
import unicodedata
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from autograder.grade import batch
from autograder.grade.batch import discover
from autograder.grade.run_options import RunOptions
from autograder.reports import gradescope_json
from autograder.reports.out_dir import MAX_NAME_BYTES, OutDir, OutDirError, safe_component

ASSIGNMENT = "01_immutable_updates"
PY_SOLUTION = (REPO / "tests" / "test_batch_grading.py").read_text().split("PY_SOLUTION_01 = '''")[1].split("'''")[0]
# A file name of 250 UTF-8 bytes (the most a Linux file name can have is 255).
LONG_NAME = "긴" * 80 + "_01.py"
HOSTILE_NAMES = ["...py", "..py", " spaced name.py", f"과제_{ASSIGNMENT}.py", f"Twin_{ASSIGNMENT}.py",
                 f"twin_{ASSIGNMENT}.py", f"new\nline_{ASSIGNMENT}.py", LONG_NAME]
HOSTILE_IDS = ["three_dots", "two_dots", "leading_space", "korean", "upper_case_twin", "lower_case_twin", "newline",
               "250_bytes"]
PLANTED = {"fifo": f"과제_{ASSIGNMENT}", "directory": f"alice_{ASSIGNMENT}", "link": f"bob_{ASSIGNMENT}",
           "linked_dir": f"carol_{ASSIGNMENT}"}
ADDED = f"dave_{ASSIGNMENT}.py"
RUN_SECONDS = 600


def _sandbox() -> str:
    from autograder.sandbox import os_isolation

    try:
        os_isolation.check_available(sys.executable)
    except os_isolation.IsolationUnavailable:
        return "process"
    return "os"


def _grade(submissions: Path, out: Path, *extra: str):
    return run_cli("grade", str(submissions), "--out", str(out), "--seed", "7",
                   "--assignment", ASSIGNMENT, "--sandbox", _sandbox(), *extra, timeout=RUN_SECONDS)


def _tree(root: Path) -> dict[str, bytes | str]:
    """Every path under `root` (not following links), with file contents and link targets."""
    tree = {}
    for path in sorted(root.rglob("*")):
        mode = path.lstat().st_mode
        tree[str(path.relative_to(root))] = (f"-> {os.readlink(path)}" if stat.S_ISLNK(mode)
                                             else path.read_bytes() if stat.S_ISREG(mode) else stat.filemode(mode))
    return tree


def _names(out: Path) -> dict[str, str]:
    """Submission directory name -> the submission path its results.json records."""
    return {p.parent.name: json.loads(p.read_text())["extra_data"]["path"] for p in out.glob("*/results.json")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("out_dir_safety")
    submissions, out, outside = root / "submissions", root / "out", root / "outside"
    for directory in (submissions, out, outside):
        directory.mkdir()
    for name in [*HOSTILE_NAMES, *(f"{PLANTED[k]}.py" for k in ("directory", "link", "linked_dir"))]:
        (submissions / name).write_text(PY_SOLUTION)
    names = {item.path.name: item.name for item in discover([submissions])}

    (outside / "grades_target.csv").write_text("outside, not the grader's\n")
    (outside / "results_target.json").write_text('{"outside": true}\n')
    (outside / "carol_dir").mkdir()
    os.mkfifo(out / "grades.csv.tmp")
    os.symlink(outside / "grades_target.csv", out / "grades.csv")
    (out / PLANTED["fifo"]).mkdir()
    os.mkfifo(out / PLANTED["fifo"] / "results.json")
    (out / PLANTED["directory"] / "results.json").mkdir(parents=True)
    (out / PLANTED["directory"] / "results.json" / "kept.txt").write_text("moved aside, not deleted\n")
    (out / PLANTED["link"]).mkdir()
    os.symlink(outside / "results_target.json", out / PLANTED["link"] / "results.json")
    os.symlink(outside / "carol_dir", out / PLANTED["linked_dir"])
    os.mkfifo(out / names[" spaced name.py"])  # a FIFO where a submission's directory belongs
    outside_before, submissions_before = _tree(outside), _tree(submissions)
    root_before = sorted(p.name for p in root.iterdir())

    first = _grade(submissions, out)
    after_first = {"names": _names(out), "grades": (out / "grades.csv").read_text(encoding="utf-8"),
                   "outside": _tree(outside), "submissions": _tree(submissions),
                   "root": sorted(p.name for p in root.iterdir()),
                   "mtimes": {p.parent.name: p.stat().st_mtime_ns for p in out.glob("*/results.json")}}

    # Second run, --resume: one submission added; two finished results replaced by a FIFO and a forged link.
    (submissions / ADDED).write_text(PY_SOLUTION)
    forged = json.loads((out / names[f"{PLANTED['directory']}.py"] / "results.json").read_text())
    forged["score"] = 999
    (outside / "forged.json").write_text(json.dumps(forged))
    (out / PLANTED["directory"] / "results.json").unlink()
    os.mkfifo(out / PLANTED["directory"] / "results.json")
    (out / PLANTED["link"] / "results.json").unlink()
    os.symlink(outside / "forged.json", out / PLANTED["link"] / "results.json")
    second = _grade(submissions, out, "--resume")
    return {"root": root, "out": out, "outside": outside, "names": names, "first": first, "second": second,
            "after_first": after_first, "outside_before": outside_before, "submissions_before": submissions_before,
            "root_before": root_before}


def _result(out: Path, name: str) -> dict:
    return json.loads((out / name / "results.json").read_text(encoding="utf-8"))


# --- the CLI runs ------------------------------------------------------------------------------


def test_batch_with_planted_fifos_links_and_directories_finishes_normally(runs):
    assert runs["first"].returncode == 0, runs["first"].stderr[-3000:]
    assert runs["second"].returncode == 0, runs["second"].stderr[-3000:]


def test_fifo_at_grades_csv_tmp_does_not_block_and_grades_csv_is_written(runs):
    rows = list(csv.DictReader(runs["after_first"]["grades"].splitlines()))
    assert {r["submission"] for r in rows} == set(runs["names"].values())
    assert all(float(r["score"]) == 18 for r in rows), rows


def test_fifo_at_a_results_json_path_is_replaced_by_the_result(runs):
    path = runs["out"] / PLANTED["fifo"] / "results.json"
    assert stat.S_ISREG(path.lstat().st_mode)
    assert _result(runs["out"], PLANTED["fifo"])["score"] == 18


def test_directory_at_a_results_json_path_is_moved_aside_and_the_result_written(runs):
    directory = runs["out"] / PLANTED["directory"]
    assert runs["after_first"]["names"][PLANTED["directory"]].endswith(f"{PLANTED['directory']}.py")
    aside = [p for p in directory.iterdir() if p.name.startswith(".results.json.replaced-")]
    assert len(aside) == 1 and (aside[0] / "kept.txt").read_text() == "moved aside, not deleted\n"
    assert "was a directory; moved it aside" in runs["first"].stderr


def test_symlink_at_results_json_is_replaced_and_its_target_untouched(runs):
    path = runs["out"] / PLANTED["link"] / "results.json"
    assert stat.S_ISREG(path.lstat().st_mode)
    assert _result(runs["out"], PLANTED["link"])["score"] == 18
    assert runs["after_first"]["outside"] == runs["outside_before"]


def test_symlink_at_grades_csv_is_replaced_and_its_target_untouched(runs):
    assert stat.S_ISREG((runs["out"] / "grades.csv").lstat().st_mode)
    assert (runs["outside"] / "grades_target.csv").read_text() == "outside, not the grader's\n"


def test_symlink_or_fifo_in_place_of_a_submission_directory_is_replaced(runs):
    for name in (PLANTED["linked_dir"], runs["names"][" spaced name.py"]):
        assert stat.S_ISDIR((runs["out"] / name).lstat().st_mode), name
        assert _result(runs["out"], name)["score"] == 18
    assert list((runs["outside"] / "carol_dir").iterdir()) == []


@pytest.mark.parametrize("file_name", HOSTILE_NAMES, ids=HOSTILE_IDS)
def test_hostile_file_names_each_get_their_own_directory_inside_out(runs, file_name):
    out, name = runs["out"], runs["names"][file_name]
    assert name == safe_component(name, max_bytes=255) and len(name.encode()) <= MAX_NAME_BYTES + 10
    assert (out / name).parent == out and not name.startswith(".")
    assert runs["after_first"]["names"][name] == str(runs["root"] / "submissions" / file_name)
    assert _result(out, name)["score"] == 18


def test_names_are_unique_ignoring_case(runs):
    names = list(runs["names"].values())
    assert len({n.casefold() for n in names}) == len(names) == len(HOSTILE_NAMES) + 3
    assert f"과제_{ASSIGNMENT}" in names, "readable Unicode names stay as they are"


def test_nothing_is_written_outside_out(runs):
    assert runs["after_first"]["root"] == runs["root_before"]
    assert runs["after_first"]["submissions"] == runs["submissions_before"]
    assert _tree(runs["outside"]) == {**runs["outside_before"],
                                      "forged.json": (runs["outside"] / "forged.json").read_bytes()}


def test_names_are_stable_when_a_submission_is_added(runs):
    before, after = runs["after_first"]["names"], _names(runs["out"])
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) == {f"dave_{ASSIGNMENT}"}
    mtimes = {p.parent.name: p.stat().st_mtime_ns for p in runs["out"].glob("*/results.json")}
    regraded = {name for name, t in runs["after_first"]["mtimes"].items() if mtimes[name] != t}
    assert regraded == {PLANTED["directory"], PLANTED["link"]}, "finished results are kept under --resume"


def test_resume_trusts_no_fifo_or_link_in_place_of_a_result(runs):
    for name in (PLANTED["directory"], PLANTED["link"]):
        path = runs["out"] / name / "results.json"
        assert stat.S_ISREG(path.lstat().st_mode), name
        assert _result(runs["out"], name)["score"] == 18
    assert json.loads((runs["outside"] / "forged.json").read_text())["score"] == 999


def test_grades_csv_is_written_after_every_run(runs):
    rows = list(csv.DictReader((runs["out"] / "grades.csv").read_text(encoding="utf-8").splitlines()))
    assert len(rows) == len(runs["names"]) + 1
    assert all(float(r["score"]) == 18 for r in rows), rows


# --- names, without running anything ---------------------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("...", "submission"), ("..", "submission"), (".", "submission"), ("", "submission"),
    (" spaced name ", "spaced name"), ("a/b\\c", "a_b_c"), ("new\nline\x00x", "new_line_x"),
    ("tab\there", "tab_here"), ("what?<>:*|\"", "what_______"), (".hidden", "hidden"), ("-rf", "rf"),
    ("=HYPERLINK(1)", "HYPERLINK(1)"), ("CON", "_CON"), ("nul.txt", "_nul.txt"), ("grades.csv", "_grades.csv"),
    ("Grades.CSV", "_Grades.CSV"), ("과제_01", "과제_01"), ("trailing. .", "trailing"), ("a\u2028b", "a_b"),
])
def test_safe_component_makes_one_portable_file_name(text, expected):
    assert safe_component(text) == expected


def test_safe_component_normalizes_unicode_to_nfc():
    decomposed = unicodedata.normalize("NFD", "과제")
    assert decomposed != "과제" and safe_component(decomposed) == "과제"


def test_safe_component_bounds_the_length_in_bytes_between_characters():
    name = safe_component("긴" * 100)  # 300 bytes
    assert len(name.encode()) <= MAX_NAME_BYTES and name == "긴" * (MAX_NAME_BYTES // 3)


def _touch(root: Path, *names: str) -> list[Path]:
    for name in names:
        (root / name).write_text("")
    return [root / n for n in names]


def test_discover_keeps_a_plain_unique_stem(tmp_path):
    _touch(tmp_path, f"alice_{ASSIGNMENT}.py", f"bob_{ASSIGNMENT}.ipynb")
    assert [i.name for i in discover([tmp_path])] == [f"alice_{ASSIGNMENT}", f"bob_{ASSIGNMENT}"]
    missing = tmp_path / "ghost.ipynb.missing"
    assert [i.name for i in discover([missing])] == ["ghost.ipynb"]


def test_discover_names_are_safe_unique_and_inside_out(tmp_path):
    _touch(tmp_path, *HOSTILE_NAMES, "Case.py", "case.py", "CASE.ipynb", ".hidden.py", "grades.csv.py")
    (tmp_path / "sub").mkdir()
    _touch(tmp_path / "sub", "case.py")
    too_long = tmp_path / ("a" * 300 + ".py")  # cannot exist on Linux; kept, to get a result that says so
    items = discover([tmp_path, too_long])
    names = [i.name for i in items]
    assert len(items) == len(HOSTILE_NAMES) + 7
    assert len({n.casefold() for n in names}) == len(names)
    for name in names:
        assert name == safe_component(name, max_bytes=255) and name not in (".", "..", "grades.csv")
        assert len(name.encode()) <= MAX_NAME_BYTES + 10
        assert (tmp_path / "out" / name).resolve().parent == (tmp_path / "out").resolve()


def test_discover_names_are_stable_when_submissions_are_added_or_removed(tmp_path):
    first = _touch(tmp_path, "alice.py", "...py", "b o b.py", "Twin.py", "twin.py")
    before = {i.path: i.name for i in discover([tmp_path])}
    _touch(tmp_path, "zed.py", "..py", "TWIN.ipynb")
    after = {i.path: i.name for i in discover([tmp_path])}
    assert {p: after[p] for p in first} == before
    (tmp_path / "alice.py").unlink()
    (tmp_path / "Twin.py").unlink()
    again = {i.path: i.name for i in discover([tmp_path])}
    assert {p: again[p] for p in again if p in before} == {p: n for p, n in before.items() if p in again}
    assert {i.path: i.name for i in discover(list(reversed(sorted(tmp_path.iterdir()))))} == again


def test_discover_a_colliding_addition_never_hands_a_name_to_another_submission(tmp_path):
    alice, = _touch(tmp_path, "alice.py")
    assert discover([tmp_path])[0].name == "alice"
    _touch(tmp_path, "Alice.ipynb")
    names = {i.path: i.name for i in discover([tmp_path])}
    assert "alice" not in {n.casefold() for n in names.values()}
    assert names[alice].startswith("alice__")
    assert len(set(names.values())) == 2


def test_discover_same_relative_path_under_two_roots(tmp_path):
    for root in ("a", "b"):
        (tmp_path / root).mkdir()
        _touch(tmp_path / root, "x.py")
    names = [i.name for i in discover([tmp_path / "a", tmp_path / "b"])]
    assert len(set(names)) == 2 and all(n.startswith("x__") for n in names)


# --- the out_dir module, directly ---------------------------------------------------------------


@pytest.fixture
def out(tmp_path):
    notes = []
    directory = OutDir(tmp_path / "out", note=notes.append)
    directory.notes = notes
    yield directory
    directory.close()


def _in_time(function, seconds=300):
    """Run `function` in a thread; fail (instead of hanging) if it blocks.

    A blocked open of a FIFO never returns, so the limit only has to be longer than the slowest honest
    run on a loaded machine (a batch imports matplotlib for its report); it decides nothing else."""
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("value", _capture(function)), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{function} blocked"
    if isinstance(result["value"], BaseException):
        raise result["value"]
    return result["value"]


def _capture(function):
    try:
        return function()
    except BaseException as error:
        return error


def test_write_replaces_a_fifo_without_blocking(out):
    (out.path / "s").mkdir()
    os.mkfifo(out.path / "s" / "results.json")
    _in_time(lambda: out.write_file("s", "results.json", b"{}"))
    assert (out.path / "s" / "results.json").read_bytes() == b"{}"
    assert any("was a FIFO" in n for n in out.notes)


def test_write_replaces_a_symlink_and_leaves_its_target_alone(out, tmp_path):
    target = tmp_path / "target"
    target.write_text("keep")
    os.symlink(target, out.path / "grades.csv")
    out.write_file(None, "grades.csv", b"new")
    assert not (out.path / "grades.csv").is_symlink() and (out.path / "grades.csv").read_bytes() == b"new"
    assert target.read_text() == "keep"


def test_write_replaces_a_socket(out):
    (out.path / "s").mkdir()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(out.path / "s" / "results.json"))
        out.write_file("s", "results.json", b"{}")
    assert (out.path / "s" / "results.json").read_bytes() == b"{}"


def test_write_moves_a_directory_aside_with_a_note(out):
    (out.path / "s" / "results.json" / "inner").mkdir(parents=True)
    out.write_file("s", "results.json", b"{}")
    assert (out.path / "s" / "results.json").read_bytes() == b"{}"
    aside = [p.name for p in (out.path / "s").iterdir() if p.name != "results.json"]
    assert len(aside) == 1 and aside[0].startswith(".results.json.replaced-")
    assert any("moved it aside" in n for n in out.notes)


def test_write_replaces_a_symlink_or_fifo_in_place_of_the_entry_directory(out, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, out.path / "s")
    os.mkfifo(out.path / "t")
    _in_time(lambda: (out.write_file("s", "results.json", b"1"), out.write_file("t", "results.json", b"2")))
    assert (out.path / "s").is_dir() and not (out.path / "s").is_symlink()
    assert (out.path / "t" / "results.json").read_bytes() == b"2"
    assert list(elsewhere.iterdir()) == []


def test_write_never_opens_a_planted_temporary_name(out, tmp_path, monkeypatch):
    tokens = iter(["planted", "planted", "fresh"])
    monkeypatch.setattr("autograder.reports.out_dir.secrets.token_hex", lambda n: next(tokens))
    target = tmp_path / "target"
    target.write_text("keep")
    (out.path / "s").mkdir()
    os.symlink(target, out.path / "s" / ".results.json.planted.tmp")
    out.write_file("s", "results.json", b"{}")
    assert target.read_text() == "keep" and (out.path / "s" / "results.json").read_bytes() == b"{}"


def test_read_refuses_anything_but_a_bounded_regular_file_without_blocking(out, tmp_path):
    (out.path / "fifo").mkdir()
    os.mkfifo(out.path / "fifo" / "results.json")
    (out.path / "link").mkdir()
    (tmp_path / "target.json").write_text("{}")
    os.symlink(tmp_path / "target.json", out.path / "link" / "results.json")
    (out.path / "dir" / "results.json").mkdir(parents=True)
    (out.path / "big").mkdir()
    (out.path / "big" / "results.json").write_bytes(b" " * 101)
    os.symlink(tmp_path, out.path / "linked_entry")
    cases = {"fifo": "is a FIFO", "link": "is a symbolic link", "dir": "is a directory", "big": "has 101 bytes",
             "missing": "does not exist", "linked_entry": "is a symbolic link"}
    for entry, message in cases.items():
        with pytest.raises(OutDirError, match=message):
            _in_time(lambda entry=entry: out.read_file(entry, "results.json", limit=100))
    assert out.read_file("big", "results.json", limit=101) == b" " * 101


def test_out_dir_that_is_a_symlink_is_refused_with_the_fix(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "out")
    with pytest.raises(OutDirError, match=r"is a symbolic link .*Pass the directory itself"):
        OutDir(tmp_path / "out")
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OutDirError, match="is a FIFO, not a directory"):
        _in_time(lambda: OutDir(tmp_path / "fifo"))


def test_out_dir_replaced_during_the_run_is_refused(out, tmp_path):
    with pytest.raises(OutDirError, match="not the directory the batch opened"):
        OutDir(out.path, create=False, identity=(out.identity[0], out.identity[1] + 1))


def test_entry_and_filename_must_be_single_names(out):
    for bad in ("..", ".", "a/b", "", "x\0y"):
        with pytest.raises(ValueError, match="must be a single file name"):
            out.write_file(bad, "results.json", b"")
        with pytest.raises(ValueError, match="must be a single file name"):
            out.write_file(None, bad, b"")


def test_grades_csv_is_written_when_results_cannot_be_read(tmp_path, monkeypatch, config):
    names = [f"{s}_{ASSIGNMENT}" for s in ("fifo", "garbage", "list", "gone", "fine")]
    submissions = _touch(tmp_path, *(f"{n}.py" for n in names))
    finished = {"score": 18.0, "tests": [], "extra_data": {"submission": names[4], "max_score": 18.0,
                                                          "finished": True, "problem": None}}

    def plant(items, out, *args):
        for item in items:
            (out.path / item.name).mkdir()
        os.mkfifo(out.path / names[0] / "results.json")
        (out.path / names[1] / "results.json").write_text("{not json")
        (out.path / names[2] / "results.json").write_text("[1, 2]")
        gradescope_json.write_data(finished, out, names[4])
        raise RuntimeError("a worker thread failed")

    monkeypatch.setattr(batch, "_grade_all", plant)
    with pytest.raises(RuntimeError, match="a worker thread failed"):
        _in_time(lambda: batch.grade_batch(submissions, tmp_path / "out", RunOptions(config, 7, assignment=ASSIGNMENT)))
    rows = {r["submission"]: r for r in csv.DictReader((tmp_path / "out" / "grades.csv").open(encoding="utf-8"))}
    assert set(rows) == set(names)
    assert float(rows[names[4]]["score"]) == 18
    for name in names[:4]:  # zeros the batch wrote in place of what it could not read: not grades
        assert (rows[name]["status"], rows[name]["reason"]) == ("not graded", "kit error"), rows[name]
        assert rows[name]["score"] == "" and rows[name]["max_score"] == "18.0", rows[name]
        result = json.loads((tmp_path / "out" / name / "results.json").read_text())
        assert "could not be read back" in result["output"], result["output"]


def test_a_file_name_that_looks_like_a_spreadsheet_formula_is_written_as_text():
    from autograder.reports import grades_csv

    rows = [{"submission": "=HYPERLINK(\"http://x\")", "assignment": "02_where", "score": 0, "max_score": 17,
             "passed": 0, "failed": 1, "seed": 1, "path": "+cmd.ipynb"}]
    text = grades_csv.render(rows)
    assert "'=HYPERLINK" in text and "'+cmd.ipynb" in text
