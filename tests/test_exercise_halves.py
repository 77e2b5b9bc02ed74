"""A whole notebook's `autograder check` runs in two processes at once, one going through the exercises from the
first and the other from the last, each checking those the other has not taken (student/exercise_halves.py), and
says exactly what one process says: the same checks in the same order, the same verdicts, hints said once per
function, and the same checks stopped by the submission's budget.

One process is what a machine with one usable core gets: `taskset`'s affinity, read by the check.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import parts_log
import pytest
from conftest import course_config

from autograder.catalog import messages
from autograder.check.results import CheckResult, SubmissionResult
from autograder.student import exercise_halves
from autograder.student.check_processes import CheckProcessFailed, Part, PartResult

REPO = Path(__file__).resolve().parent.parent

def _check(notebook: Path, config: Path, cores: int, log: Path, seed: int = 7,
           language: str = "en") -> subprocess.CompletedProcess:
    """The kit's `autograder check` of `notebook` on `cores` of this machine's cores."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "XLA_"))}
    env[parts_log.VARIABLE] = str(log)
    command = [sys.executable, "-c", parts_log.checking_script("autograder.cli"), "--config", str(config), "--lang",
               language, "check", str(notebook), "--seed", str(seed)]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=notebook.parent, timeout=600,
                          preexec_fn=lambda: os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cores]))


def _result(*functions: str, notes: tuple[str, ...] = ()) -> SubmissionResult:
    return SubmissionResult(name="n", path="n.ipynb", assignment="a", seed=1, notes=list(notes),
                            checks=[CheckResult(f, prop, 1.0, 1.0, True, "") for f in functions
                                    for prop in ("correct", "jittable")])


def test_each_process_gets_every_other_exercise_then_the_others_from_their_end(monkeypatch):
    monkeypatch.setattr(exercise_halves, "usable_cores", lambda: 2)
    assert exercise_halves.parts(["a", "b", "c", "d", "e"]) == [Part(exercises=("a", "c", "e", "d", "b"), claimed=True),
                                                               Part(exercises=("b", "d", "e", "c", "a"), claimed=True)]


def test_with_what_each_exercise_costs_both_processes_go_from_the_costliest_down(monkeypatch):
    monkeypatch.setattr(exercise_halves, "usable_cores", lambda: 2)
    seconds = {"a": 0.78, "b": 1.03, "c": 0.64, "d": 0.87, "e": 0.64}
    assert exercise_halves.parts(["a", "b", "c", "d", "e"], seconds) == [
        Part(exercises=("b", "d", "a", "c", "e"), claimed=True)] * 2
    # An exercise the table lacks (one added since it was written): every other one, as without.
    assert exercise_halves.parts(["a", "b", "c"], {"a": 1.0, "b": 2.0})[0].exercises == ("a", "c", "b")


def test_one_exercise_or_one_usable_core_is_checked_in_one_process(monkeypatch):
    monkeypatch.setattr(exercise_halves, "usable_cores", lambda: 2)
    assert exercise_halves.parts(["a"]) is None
    monkeypatch.setattr(exercise_halves, "usable_cores", lambda: 1)
    assert exercise_halves.parts(["a", "b"]) is None


def test_the_halves_results_are_shown_in_the_suites_order_with_each_note_once():
    first = PartResult(Part(exercises=("a", "c")), _result("a", "c", notes=("loaded",)), 1.0)
    second = PartResult(Part(exercises=("b",)), _result("b", notes=("loaded", "b's API")), 1.0)
    joined = exercise_halves.joined([first, second], ["a", "b", "c"], budget_seconds=240)
    assert [(check.function, check.prop) for check in joined.checks] == [
        ("a", "correct"), ("a", "jittable"), ("b", "correct"), ("b", "jittable"), ("c", "correct"), ("c", "jittable")]
    assert joined.notes == ["loaded", "b's API"]


def test_halves_that_both_checked_a_function_leave_it_to_one_process():
    halves = [PartResult(Part(exercises=("a", "b")), _result("a", "b"), 1.0),
              PartResult(Part(exercises=("b",)), _result("b"), 1.0)]
    assert exercise_halves.joined(halves, ["a", "b"], budget_seconds=240.0) is None


def test_halves_that_together_spent_more_than_the_budget_leave_the_verdict_to_one_process():
    halves = [PartResult(Part(exercises=("a",)), _result("a"), 130.0),
              PartResult(Part(exercises=("b",)), _result("b"), 120.0)]
    assert exercise_halves.joined(halves, ["a", "b"], budget_seconds=240) is None
    assert exercise_halves.joined(halves, ["a", "b"], budget_seconds=300) is not None


def _usable_cores() -> int:
    return len(os.sched_getaffinity(0))


@pytest.mark.parametrize("kind, assignment", [("solutions", "06_prng"), ("assignments", "06_prng"),
                                              ("solutions", "07_vmap_pytrees")])
def test_a_notebook_checked_in_halves_says_what_one_process_says(tmp_path, kind, assignment):
    assert _usable_cores() >= 2, "this test compares two cores with one: it needs a machine with two"
    notebook = Path(shutil.copy(REPO / kind / assignment / f"{assignment}.ipynb", tmp_path / f"{assignment}.ipynb"))
    halves = _check(notebook, REPO / "grading.toml", cores=2, log=tmp_path / "halves.log")
    alone = _check(notebook, REPO / "grading.toml", cores=1, log=tmp_path / "alone.log")
    assert parts_log.started_parts(tmp_path / "alone.log") == []
    # Both from the costliest exercise, as the suites' table measured them.
    seconds = exercise_halves.seconds_in_table(REPO / "autograder" / "suites", assignment)
    assert sorted(seconds) == sorted(_functions(assignment))
    assert parts_log.started_parts(tmp_path / "halves.log") == [[sorted(_functions(assignment),
                                                                        key=lambda name: -seconds[name])] * 2]
    assert halves.stdout == alone.stdout and halves.returncode == alone.returncode, halves.stdout + halves.stderr
    assert ("All checks passed." in halves.stdout) == (kind == "solutions")


def test_a_notebook_with_mistakes_in_some_exercises_says_what_one_process_says(tmp_path):
    """Wrong values, hints said once per function, and checks not reached, across both halves."""
    source = json.loads((REPO / "solutions" / "02_where" / "02_where.ipynb").read_text(encoding="utf-8"))
    for cell in source["cells"]:
        text = "".join(cell["source"])
        if "def masked_mean" in text:
            cell["source"] = (REPO / "tests" / "corpus" / "02_where" / "mistakes" /
                              "masked_mean_divide_by_count.py").read_text(encoding="utf-8")
        if "def selu" in text:
            cell["source"] = "import jax.numpy as jnp\n\ndef selu(x):\n    return jnp.maximum(x, 0.0)\n"
    notebook = tmp_path / "02_where.ipynb"
    notebook.write_text(json.dumps(source), encoding="utf-8")
    halves = _check(notebook, REPO / "grading.toml", cores=2, log=tmp_path / "halves.log")
    alone = _check(notebook, REPO / "grading.toml", cores=1, log=tmp_path / "alone.log")
    assert len(parts_log.started_parts(tmp_path / "halves.log")) == 1
    assert halves.returncode == alone.returncode == 1
    assert halves.stdout == alone.stdout, halves.stdout + halves.stderr
    assert "✗ selu" in halves.stdout and "✗ masked_mean" in halves.stdout and "✓ safe_log" in halves.stdout


def test_halves_over_the_submissions_budget_are_checked_again_in_one_process(tmp_path):
    """A budget of 5 s of CPU time, and a first exercise whose first call spends 8 s: one process runs out in it
    and runs no later check. Its half runs out too, the other half would not: together they spent more than
    one process may, so the check runs again in one process, which stops the checks one process stops."""
    text = (REPO / "grading.toml").read_text(encoding="utf-8").replace("submission_seconds = 240",
                                                                        "submission_seconds = 5")
    assert "submission_seconds = 5\n" in text
    config = course_config(tmp_path, text)
    source = json.loads((REPO / "solutions" / "06_prng" / "06_prng.ipynb").read_text(encoding="utf-8"))
    cell = next(cell for cell in source["cells"] if "def generate_linear_samples" in "".join(cell["source"]))
    cell["source"] = "".join(cell["source"]) + textwrap.dedent("""

        import time as _time
        _spent = []
        _samples = generate_linear_samples

        def generate_linear_samples(*args, **kwargs):
            while not _spent and _time.process_time() < 8 + _spent_before:
                pass
            _spent.append(True)
            return _samples(*args, **kwargs)

        _spent_before = _time.process_time()
    """)
    notebook = tmp_path / "06_prng.ipynb"
    notebook.write_text(json.dumps(source), encoding="utf-8")
    halves = _check(notebook, config, cores=2, log=tmp_path / "halves.log")
    alone = _check(notebook, config, cores=1, log=tmp_path / "alone.log")
    assert len(parts_log.started_parts(tmp_path / "halves.log")) == 1
    assert halves.stdout == alone.stdout, halves.stdout + halves.stderr
    said = " ".join(halves.stdout.split())  # the table wraps long lines
    assert "total limit of 5 s of CPU time" in said and "✓ random_walk" not in said


@pytest.mark.parametrize("language", ["en", "ko"])
def test_a_half_ended_by_a_signal_from_the_students_code_says_so_not_that_the_kit_failed(tmp_path, language):
    """The student's random_walk kills its own process (as the kernel's OOM killer would): the half that checks
    it ends without a result. One sentence names the exercises and the signal and says how to find which."""
    source = json.loads((REPO / "solutions" / "06_prng" / "06_prng.ipynb").read_text(encoding="utf-8"))
    cell = next(cell for cell in source["cells"] if "def random_walk" in "".join(cell["source"]))
    cell["source"] = "import os, signal\n\ndef random_walk(*args):\n    os.kill(os.getpid(), signal.SIGKILL)\n"
    notebook = tmp_path / "06_prng.ipynb"
    notebook.write_text(json.dumps(source), encoding="utf-8")
    halves = _check(notebook, REPO / "grading.toml", cores=2, log=tmp_path / "halves.log", language=language)
    [[order, same]] = parts_log.started_parts(tmp_path / "halves.log")
    assert order == same and order[:2] == ["init_mlp_params", "random_walk"]
    # The process that took random_walk dies in it, the second exercise of their way through: it took
    # random_walk alone (the other took init_mlp_params first), or init_mlp_params and then random_walk (had
    # the other process been too slow to take either first).
    with messages.using(language):
        expected = {messages.text("student.part_ended_exercises", exercises=", ".join(taken), signal="SIGKILL",
                                  path=str(notebook)) for taken in (["random_walk"], order[:2])}
    assert (halves.returncode, halves.stdout) == (2, "") and halves.stderr.strip() in expected, halves.stderr


def test_a_device_counts_process_ended_by_a_signal_names_its_count_and_any_other_end_is_the_kits():
    killed = CheckProcessFailed(Part(devices=4), -9, "")
    with messages.using("en"):
        assert killed.ended_by("10_parallel.ipynb") == messages.text(
            "student.part_ended_devices", devices=4, signal="SIGKILL", path="10_parallel.ipynb")
    assert CheckProcessFailed(Part(devices=4), 1, "Traceback ...").ended_by("10_parallel.ipynb") is None


def _functions(assignment: str) -> list[str]:
    from autograder import grading_config

    return grading_config.load().functions(assignment)


def test_no_folder_for_the_claims_is_the_kits_failure_said_as_such(monkeypatch):
    from autograder.student import check_processes

    def refused(**_):
        raise PermissionError("/tmp is read-only")

    monkeypatch.setattr(check_processes.tempfile, "mkdtemp", refused)
    with pytest.raises(CheckProcessFailed, match="no folder for the parts' claims: /tmp is read-only") as failed:
        check_processes.start(["check", "n.ipynb"], [Part(exercises=("a", "b"), claimed=True)])
    assert failed.value.ended_by("n.ipynb") is None  # not a signal: the kit's failure, said as such


def test_the_package_reads_each_functions_seconds_from_its_index_and_nothing_from_an_index_without(tmp_path):
    from autograder.student import recorded

    index = {"format": recorded.FORMAT, "assignments": {"a": {"f": {}, "g": {}}, "b": {"h": {}}},
             "check_seconds": {"a": {"f": 0.5, "g": 2, "h": "long", "k": -1.0, "m": True}}}
    recorded.write_index(tmp_path, index)
    recorded.write(tmp_path, "a", {"checks": [{"function": "g"}, {"function": "f"}]}, [])
    package = recorded.Package(tmp_path)
    assert package.check_seconds("a") == {"f": 0.5, "g": 2.0} and package.functions_in_order("a") == ["g", "f"]
    assert package.check_seconds("b") == {} == package.check_seconds("missing")
    recorded.write_index(tmp_path, {key: value for key, value in index.items() if key != "check_seconds"})
    assert recorded.Package(tmp_path).check_seconds("a") == {}


def test_a_clones_seconds_are_read_from_the_table_beside_its_suites_and_a_missing_or_broken_one_gives_none(tmp_path):
    (tmp_path / exercise_halves.SECONDS_TABLE).write_text('[a]\nf = 0.5\ng = "long"\nh = -1\n[b]\n', encoding="utf-8")
    assert exercise_halves.seconds_in_table(tmp_path, "a") == {"f": 0.5}
    assert exercise_halves.seconds_in_table(tmp_path, "b") == {} == exercise_halves.seconds_in_table(tmp_path, "c")
    assert exercise_halves.seconds_in_table(tmp_path / "nowhere", "a") == {}
    (tmp_path / exercise_halves.SECONDS_TABLE).write_text("[a\n", encoding="utf-8")
    assert exercise_halves.seconds_in_table(tmp_path, "a") == {}


def test_a_killed_checks_claims_folder_is_removed_by_the_next_check_and_a_running_ones_kept(tmp_path, monkeypatch):
    from autograder.student import check_processes

    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    monkeypatch.setattr(check_processes.tempfile, "tempdir", str(tmp_path))
    left = tmp_path / f"{check_processes.CLAIMS_PREFIX}{ended.pid}-x1"  # a check killed before it could remove it
    running = tmp_path / f"{check_processes.CLAIMS_PREFIX}{os.getpid()}-x2"
    for folder in (left, running):
        folder.mkdir()
        (folder / "histogram").write_text("1")
    new = check_processes._claims_folder([Part(exercises=("a", "b"), claimed=True)])
    assert new.parent == tmp_path and new.name.startswith(f"{check_processes.CLAIMS_PREFIX}{os.getpid()}-")
    assert not left.exists() and running.exists()
