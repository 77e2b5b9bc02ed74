"""The `autograder` command line agrees with the README, and fails with sentences, not tracebacks."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest
from conftest import REPO, run_cli

from autograder import cli
from autograder.load import submission_source
from autograder.reports import out_dir

README = REPO / "README.md"
CLASSROOM_README = REPO / "autograder" / "integrations" / "github_classroom" / "README.md"
COURSE_GUIDE = REPO / "docs" / "a-course-of-your-own.md"
# What a synopsis's placeholders stand for when it is parsed: any value the option accepts.
PLACEHOLDERS = {"S": "7", "SCORE": "50", "N": "2", "J": "2", "K/N": "0/2"}


def _readme_command_lines(readme: Path = README) -> list[str]:
    """Every `autograder ...` command a README shows: in code blocks (continuation lines joined) and inline."""
    text = readme.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S):
        joined = re.sub(r"\n\s+(?=\[)", " ", block)  # a synopsis continued on the next line, indented
        commands += [line.strip().removeprefix("sudo ") for line in joined.splitlines()
                     if re.match(r"\s*(sudo )?(\.venv/bin/)?autograder ", line)
                     and not re.search(r"\s{2,}[\d.]+\s", line.split("#")[0])]  # not a row of the benchmark's table
    prose = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    # Inline, a command with arguments is a synopsis; `autograder grade` alone only names the command.
    commands += [span for span in re.findall(r"`([^`\n]+)`", prose)
                 if re.match(r"(\.venv/bin/)?autograder ", span) and len(span.split()) > 2]
    return commands


def _argv(command: str) -> list[str]:
    """The arguments of one README command: optional parts included, `a|b` as a, `...` as a file."""
    command = re.sub(r"<[^>]*>", "x", command.split("#")[0]).replace("...", "some.ipynb")  # <slug> and the like
    command = re.sub(r"\[([^\]]*)\]", r"\1", command)
    words = shlex.split(command)[1:]
    return [PLACEHOLDERS.get(word, word.split("|")[0]) for word in words]


def test_the_readme_shows_commands():
    commands = _readme_command_lines()
    assert any("grade" in command and "--lang" in command for command in commands), commands


@pytest.mark.parametrize("command", _readme_command_lines() + _readme_command_lines(CLASSROOM_README)
                         + _readme_command_lines(COURSE_GUIDE))
def test_every_readme_command_is_accepted_by_the_parser(command, capsys):
    try:
        cli._parser().parse_args(_argv(command))
    except SystemExit:
        pytest.fail(f"the README's `{command}` is rejected: {capsys.readouterr().err.strip()}")


@pytest.mark.parametrize("argv", [["grade", "s/", "--out", "r/", "--lang", "ko"],
                                  ["--lang", "ko", "grade", "s/", "--out", "r/"],
                                  ["check", "a.ipynb", "--lang", "ko"]])
def test_lang_is_accepted_before_and_after_the_command(argv):
    assert cli._parser().parse_args(argv).lang == "ko"


def test_an_option_after_the_command_does_not_hide_one_before_it():
    args = cli._parser().parse_args(["--lang", "ko", "--hints", "idea", "check", "a.ipynb"])
    assert (args.lang, args.hints) == ("ko", "idea")
    assert cli._parser().parse_args(["check", "a.ipynb"]).config is None  # the course: the current directory's
    given = cli._parser().parse_args(["--config", "c/grading.toml", "check", "a.ipynb"]).config
    assert str(given) == "c/grading.toml"


def test_version():
    completed = run_cli("--version", timeout=300)
    assert completed.returncode == 0 and re.fullmatch(r"autograder \d+\.\d+\S*\n", completed.stdout), completed


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {"autograder": parser, **subparsers.choices}


def test_every_option_and_argument_has_help_text():
    missing = [f"{name} {action.dest}" for name, command in _commands(cli._parser()).items()
               for action in command._actions
               if not isinstance(action, argparse._SubParsersAction) and not action.help]
    assert not missing, f"without help text: {missing}"


def test_checking_a_folder_says_it_is_a_folder(tmp_path):
    (tmp_path / "02_where.ipynb").write_text("{}", encoding="utf-8")
    with pytest.raises(submission_source.SubmissionError) as raised:
        submission_source.read(tmp_path)
    assert "is a folder" in str(raised.value) and "does not exist" not in str(raised.value)
    assert "02_where.ipynb" in str(raised.value)


def test_grade_says_in_one_line_when_the_user_may_not_write(monkeypatch, tmp_path, capsys):
    """A non-root user's PermissionError (files root left in --out) is a sentence and exit 2, not a traceback."""
    import autograder.grade.batch as batch

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied", ".grades.csv.tmp")

    monkeypatch.setattr(batch, "grade_batch", refuse)
    assert cli.main(["grade", str(tmp_path), "--out", str(tmp_path / "out"), "--sandbox", "process"]) == 2
    error = capsys.readouterr().err
    assert "cannot grade: Permission denied" in error and "Traceback" not in error


def test_an_out_dir_this_user_cannot_write_is_refused_before_grading(monkeypatch, tmp_path):
    monkeypatch.setattr(out_dir.os, "access", lambda path, mode, **kwargs: False)  # as a non-root user would see
    with pytest.raises(out_dir.OutDirError, match="not writable"):
        out_dir.OutDir(tmp_path)


def test_classroom_docs_say_students_can_read_the_reference_computations_and_how_to_grade_safely():
    text = " ".join(CLASSROOM_README.read_text(encoding="utf-8").split())
    assert "holds the suites' reference computations" in text
    grading = text[text.index("## Grades of record"):]
    # the instructor grades what the clone fetched
    assert grading.index("gh classroom clone student-repos") < grading.index("autograder grade <slug>-submissions/")
    assert "reference computations" in " ".join(README.read_text(encoding="utf-8").split())


@pytest.mark.parametrize("how", ["--seed", "AUTOGRADER_SEED"])
def test_grade_refuses_the_student_packages_public_seed(tmp_path, monkeypatch, capsys, how):
    """Its inputs and the reference's outputs on them are in every student's copy."""
    from autograder import cli, grading_config

    arguments = ["grade", str(tmp_path), "--out", str(tmp_path / "out"), "--sandbox", "process"]
    if how == "--seed":
        arguments += ["--seed", str(grading_config.PUBLIC_SEED)]
    else:
        monkeypatch.setenv(grading_config.SEED_ENVIRONMENT_VARIABLE, str(grading_config.PUBLIC_SEED))
    assert cli.main(arguments) == 2
    said = capsys.readouterr().err
    assert str(grading_config.PUBLIC_SEED) in said and "public seed" in said
    assert not (tmp_path / "out").exists()


def test_a_random_seed_is_never_the_public_one(monkeypatch):
    from autograder import grading_config

    draws = iter([grading_config.PUBLIC_SEED, 7])
    monkeypatch.setattr(grading_config.secrets, "randbelow", lambda bound: next(draws))
    monkeypatch.delenv(grading_config.SEED_ENVIRONMENT_VARIABLE, raising=False)
    assert grading_config.load().resolve_seed("grade", None) == 7
