"""The course directory: every command works on the folder of --config, else the current directory, and a
course's own assignments (suites/, with their catalogs and translations) are found as the kit's are.

The whole cycle with a kit installed by pip is tests/test_course_directory.py; here, the rules one at a time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from autograder import course
from autograder.integrations import gradescope_zip

ASSIGNMENT = "11_doubling"


def _one_sentence(completed: subprocess.CompletedProcess) -> str:
    assert completed.returncode == 2, (completed.stdout, completed.stderr)
    assert "Traceback" not in completed.stderr, completed.stderr
    (line,) = completed.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize("command", [["release"], ["grade", "x.ipynb", "--out", "out"], ["check", "x.ipynb"],
                                     ["gradescope-zip", "02_where", "-o", "gs.zip"],
                                     ["new-assignment", "11_x", "--functions", "f"], ["i18n", "sync"]])
def test_a_command_outside_a_course_says_where_it_looked_for_grading_toml(command, tmp_path):
    line = _one_sentence(run_cli(*command, cwd=tmp_path))
    assert f"no grading.toml in the current directory ({tmp_path.resolve()})" in line
    assert "--config" in line and "init-course" in line
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_missing_config_names_the_path_it_was_given(tmp_path):
    line = _one_sentence(run_cli("--config", str(tmp_path / "elsewhere" / "grading.toml"), "release", cwd=tmp_path))
    assert f"grading.toml not found at {tmp_path.resolve() / 'elsewhere' / 'grading.toml'}" in line


def test_merge_reads_only_the_out_dirs_it_is_given(tmp_path):
    line = _one_sentence(run_cli("merge", str(tmp_path / "shard0"), "--out", str(tmp_path / "merged"), cwd=tmp_path))
    assert "grading.toml" not in line and str(tmp_path / "shard0") in line


def test_the_course_is_the_folder_of_config_else_the_current_directory(tmp_path):
    (tmp_path / "grading.toml").write_text("")
    assert course.locate(None, cwd=tmp_path).root == tmp_path.resolve()
    assert course.locate(tmp_path / "other" / "grading.toml", cwd=REPO).root == (tmp_path / "other").resolve()
    assert course.around(tmp_path / "solutions" / "02_where").root == tmp_path.resolve()  # a check cell's kernel


@pytest.fixture()
def empty_course(tmp_path) -> Path:
    completed = run_cli("init-course", str(tmp_path / "course"), "--assignments", "none", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    return tmp_path / "course"


def test_init_course_without_assignments_keeps_the_kits_settings_and_no_assignment(empty_course):
    assert sorted(p.name for p in empty_course.iterdir()) == ["grading.toml", "nbgrader_config.py", "solutions"]
    text = (empty_course / "grading.toml").read_text()
    tables = [line for line in text.splitlines() if line.startswith("[")]
    assert tables == ["[limits]", "[sandbox]", "[feedback]", "[seeds]"]
    assert (empty_course / "nbgrader_config.py").read_bytes() == (REPO / "nbgrader_config.py").read_bytes()


def test_init_course_with_the_kits_assignments_starts_from_the_kits_course(tmp_path):
    completed = run_cli("init-course", str(tmp_path / "course"), cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    root = tmp_path / "course"
    assert (root / "grading.toml").read_bytes() == (REPO / "grading.toml").read_bytes()
    for name in ("solutions/02_where/02_where.ipynb", "solutions/ko/02_where/02_where.ipynb",
                 "assignments/02_where/02_where.ipynb", "assignments/release-manifest.json"):
        assert (root / name).read_bytes() == (REPO / name).read_bytes(), name


def test_init_course_never_writes_into_a_folder_that_holds_something(empty_course):
    line = _one_sentence(run_cli("init-course", str(empty_course), cwd=empty_course.parent))
    assert f"{empty_course} is not an empty directory" in line


def test_new_assignment_in_a_course_writes_the_suite_into_its_suites_folder(empty_course):
    completed = run_cli("new-assignment", ASSIGNMENT, "--functions", "double", cwd=empty_course)
    assert completed.returncode == 0, completed.stderr
    for name in (f"suites/test_{ASSIGNMENT}.py", f"suites/messages_{ASSIGNMENT}.py",
                 f"solutions/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", f"solutions/ko/{ASSIGNMENT}/{ASSIGNMENT}.ipynb"):
        assert (empty_course / name).is_file(), name
    assert f"[assignments.{ASSIGNMENT}.double]" in (empty_course / "grading.toml").read_text()
    assert not (empty_course / "tests").exists() and not (empty_course / "docs").exists()


_FOUND = """
import json, sys
from autograder import grading_config
from autograder.catalog import messages
from autograder.check.runner import suite_path
config = grading_config.load(sys.argv[1])
with messages.using("ko"):
    korean = messages.text("11_doubling.double.halved", x=3)
with messages.using("ko"):
    check_name = messages.check_name("twice the input")
print(json.dumps({"suite": str(suite_path("11_doubling")), "kit_suite": str(suite_path("02_where")),
                  "english": messages.text("11_doubling.double.halved", x=3), "korean": korean,
                  "check_name": check_name}))
"""
CATALOG = ('ENGLISH = {"11_doubling.double.halved": "You halved {x} instead of doubling it."}\n'
           'IDEAS: dict = {}\nAPIS: dict = {}\nCHECK_NAMES = ("twice the input",)\n')


def test_a_courses_own_suite_catalog_and_translation_are_found_as_the_kits_are(empty_course):
    assert run_cli("new-assignment", ASSIGNMENT, "--functions", "double", cwd=empty_course).returncode == 0
    (empty_course / "suites" / f"messages_{ASSIGNMENT}.py").write_text(CATALOG)
    synced = run_cli("i18n", "sync", cwd=empty_course)
    assert synced.returncode == 0 and "added 2 untranslated entries" in synced.stdout, synced.stderr
    po = empty_course / "suites" / "locale" / "ko.po"
    po.write_text(po.read_text().replace('instead of doubling it."\nmsgstr ""',
                                         'instead of doubling it."\nmsgstr "{x}을(를) 반으로 나눴습니다."')
                  .replace('msgid "twice the input"\nmsgstr ""', 'msgid "twice the input"\nmsgstr "입력의 두 배"'))
    completed = subprocess.run([sys.executable, "-c", _FOUND, str(empty_course / "grading.toml")], cwd=REPO,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    found = json.loads(completed.stdout)
    assert found["suite"] == str((empty_course / "suites" / f"test_{ASSIGNMENT}.py").resolve())
    assert found["kit_suite"] == str(REPO / "autograder" / "suites" / "test_02_where.py")
    assert found["english"] == "You halved 3 instead of doubling it."
    assert found["korean"] == "3을(를) 반으로 나눴습니다."
    assert found["check_name"] == "입력의 두 배"


def test_a_course_catalog_that_takes_a_kit_key_is_one_sentence(empty_course):
    assert run_cli("new-assignment", ASSIGNMENT, "--functions", "double", cwd=empty_course).returncode == 0
    (empty_course / "suites" / f"messages_{ASSIGNMENT}.py").write_text(
        'ENGLISH = {"cli.known": "taken"}\nIDEAS: dict = {}\nAPIS: dict = {}\n')
    line = _one_sentence(run_cli("release", cwd=empty_course))
    assert f"the course's own catalogs in {empty_course.resolve() / 'suites'} cannot be used" in line
    assert "cli.known" in line


def test_release_without_nbgrader_config_names_where_it_looked(empty_course):
    (empty_course / "nbgrader_config.py").unlink()
    completed = run_cli("release", cwd=empty_course)
    assert completed.returncode == 1 and "Traceback" not in completed.stderr
    assert f"nbgrader_config.py is missing: looked for {empty_course.resolve() / 'nbgrader_config.py'}" \
        in completed.stderr


def test_the_gradescope_zip_of_a_course_assignment_ships_the_courses_suites(empty_course, monkeypatch):
    assert run_cli("new-assignment", ASSIGNMENT, "--functions", "double", cwd=empty_course).returncode == 0
    with (empty_course / "grading.toml").open("a") as toml:
        toml.write('\n[assignments.12_no_suite.f]\n"correct" = 1\n')
    import autograder.suites
    from autograder import grading_config
    from autograder.catalog import messages

    # This process's suites and catalogs as they were, once the test is over.
    monkeypatch.setattr(autograder.suites, "__path__", list(autograder.suites.__path__))
    monkeypatch.setattr(messages, "_course_locales", [])
    config = grading_config.load(empty_course / "grading.toml")
    monkeypatch.setattr(gradescope_zip, "build_wheel", _fake_wheel)  # the wheel itself: tests/test_gradescope_zip.py
    made = gradescope_zip.build(ASSIGNMENT, empty_course / "gs.zip", config)
    with zipfile.ZipFile(made.path) as archive:
        assert archive.read(f"suites/test_{ASSIGNMENT}.py") == \
            (empty_course / "suites" / f"test_{ASSIGNMENT}.py").read_bytes()
        assert archive.read("grading.toml") == (empty_course / "grading.toml").read_bytes()
    with pytest.raises(gradescope_zip.BuildError) as refused:
        gradescope_zip.build("12_no_suite", empty_course / "x.zip", config)
    assert str(refused.value).startswith("12_no_suite's suite is missing: looked for test_12_no_suite.py in ")
    assert str(empty_course.resolve() / "suites") in str(refused.value)


def _fake_wheel(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    wheel = directory / "autograder-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("autograder/__init__.py", "")
    return wheel


def test_check_of_an_assignment_whose_suite_is_missing_says_where_it_looked(empty_course):
    assert run_cli("new-assignment", ASSIGNMENT, "--functions", "double", cwd=empty_course).returncode == 0
    (empty_course / "suites" / f"test_{ASSIGNMENT}.py").unlink()
    line = _one_sentence(run_cli("check", f"solutions/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", cwd=empty_course))
    assert f"The checks of {ASSIGNMENT} are missing: looked for test_{ASSIGNMENT}.py in " in line
    assert str(empty_course.resolve() / "suites") in line


def test_a_folder_that_cannot_be_made_is_one_sentence_naming_it(tmp_path):
    line = _one_sentence(run_cli("init-course", "/proc/no-course-here", cwd=tmp_path))
    assert "No such file or directory (/proc/no-course-here)" in line


def test_grade_of_an_assignment_whose_suite_is_missing_says_where_it_looked(empty_course):
    assert run_cli("new-assignment", ASSIGNMENT, "--functions", "double", cwd=empty_course).returncode == 0
    (empty_course / "suites" / f"test_{ASSIGNMENT}.py").unlink()
    line = _one_sentence(run_cli("grade", "solutions", "--out", "graded", "--assignment", ASSIGNMENT,
                                 cwd=empty_course))
    assert f"The checks of {ASSIGNMENT} are missing: looked for test_{ASSIGNMENT}.py in " in line
    assert not (empty_course / "graded").exists()
