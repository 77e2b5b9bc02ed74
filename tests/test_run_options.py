"""A grading run's options cross once: one value built at the command line, sent whole to each worker.

`autograder grade` builds a RunOptions from its flags, the environment and
grading.toml; the batch passes it down, and each worker reads it as one JSON
line before its first job. A worker's command line carries none of it, and
no worker reads grading.toml: what the parent decided is what it grades with.
The language and the hint level are part of the value, not variables that
the command sets for every process after it.
"""

from __future__ import annotations

import dataclasses
import os
import shutil

from conftest import REPO

from autograder import cli, grading_config
from autograder.catalog import messages
from autograder.grade import batch
from autograder.grade.run_options import RunOptions
from autograder.grade.worker_handle import worker_command

CONFIG = grading_config.load()
ASSIGNMENT = "01_immutable_updates"


def test_the_options_cross_as_json_and_back_unchanged():
    run = RunOptions(CONFIG, 12345, "process", ASSIGNMENT, language="ko", hints="recipe")
    assert RunOptions.from_json(run.to_json()) == run
    assert "\n" not in run.to_json(), "one line on the worker's stdin"


def test_a_workers_command_line_carries_no_option_of_the_run():
    command = worker_command(None, index=1, workers=2, collect=[ASSIGNMENT])
    for option in ("--seed", "--config", "--assignment", "--sandbox", "--lang", "--hints"):
        assert option not in command
    assert str(CONFIG.source) not in command


def test_the_hint_level_is_the_runs_else_grading_tomls():
    assert RunOptions(CONFIG, 1, hints="idea").hint_level == "idea"
    assert RunOptions(CONFIG, 1).hint_level == CONFIG.hint_level("grade")


def test_the_command_line_builds_the_value_with_its_language_and_hints(tmp_path, monkeypatch):
    """`grade --lang ko --hints recipe`: the value the batch gets says so, and no variable was set for it."""
    built = []
    monkeypatch.setattr(batch, "grade_batch", lambda paths, out, run, **_: built.append(run) or [])
    monkeypatch.delenv(messages.LANGUAGE_VARIABLE, raising=False)
    monkeypatch.delenv(messages.HINT_LEVEL_VARIABLE, raising=False)
    submission = tmp_path / "alice.py"
    submission.write_text("x = 1\n")
    cli.main(["--lang", "ko", "--hints", "recipe", "grade", str(submission), "--out", str(tmp_path / "out"),
              "--seed", "7", "--sandbox", "process", "--assignment", ASSIGNMENT])
    (run,) = built
    assert (run.seed, run.sandbox, run.assignment, run.language, run.hints) == (7, "process", ASSIGNMENT, "ko",
                                                                                "recipe")
    assert run.config == CONFIG
    assert messages.LANGUAGE_VARIABLE not in os.environ
    assert messages.language() == "en", "the run's language ends with the command"


def test_a_worker_grades_with_the_config_it_was_sent_not_the_grading_toml_on_disk(tmp_path):
    """Points changed in the value only: the results carry them, so the worker never read grading.toml."""
    doubled = {function: {prop: 2 * points for prop, points in props.items()}
               for function, props in CONFIG.points[ASSIGNMENT].items()}
    sent = dataclasses.replace(CONFIG, points={**CONFIG.points, ASSIGNMENT: doubled})
    submissions = tmp_path / "class"
    submissions.mkdir()
    shutil.copy(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", submissions / f"alice_{ASSIGNMENT}.ipynb")
    (result,) = batch.grade_batch([submissions], tmp_path / "out", RunOptions(sent, 5, "process", ASSIGNMENT),
                                  jobs=1)
    assert result["extra_data"]["max_score"] == 2 * CONFIG.assignment_total(ASSIGNMENT)
    assert result["score"] == result["extra_data"]["max_score"], result


def test_while_a_command_runs_its_language_is_a_value_not_the_environment(monkeypatch):
    monkeypatch.setenv(messages.LANGUAGE_VARIABLE, "en")
    with messages.speaking("ko"):
        assert messages.language() == "ko"
        with messages.using("en"):  # a notebook's own language does not override the run's
            assert messages.language() == "ko"
    assert messages.language() == "en"


def test_neither_command_line_sets_a_variable_for_the_processes_after_it(tmp_path, monkeypatch, capsys):
    from autograder.student import cli as student_cli

    monkeypatch.delenv(messages.LANGUAGE_VARIABLE, raising=False)
    monkeypatch.delenv(messages.HINT_LEVEL_VARIABLE, raising=False)
    missing = str(tmp_path / "missing.ipynb")
    student_cli.main(["--lang", "ko", "check", missing])
    cli.main(["--lang", "ko", "--hints", "idea", "--config", str(CONFIG.source), "check", missing])
    capsys.readouterr()
    assert messages.LANGUAGE_VARIABLE not in os.environ and messages.HINT_LEVEL_VARIABLE not in os.environ
