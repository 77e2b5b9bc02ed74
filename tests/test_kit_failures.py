"""A failure inside the kit is never reported as the student's mistake.

The failure is injected where the kit reads a program it was handed: the walk
over the parsed module (cleanroom.module_walk), which every path runs, in the
grader's process for the in-process backend, in the clean-room runner for
`grade`, nbgrader and Gradescope, in the student's own process for check cells
and `autograder check`. Each path then says the check's internal error, with
what to report and no hint, no location in the student's code and no advice
about how to write the function; the checks that read no program still pass.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import REPO

from autograder.catalog import messages
from autograder.check.submission import Submission
from autograder.cleanroom import module_walk
from autograder.cleanroom.programs import ProgramTable
from autograder.grade.pipeline import GradingOptions, grade_submission
from autograder.integrations.release import STUDENT_SEED, solution_notebook
from autograder.load.submission_source import read
from autograder.protocol.errors import KitFault
from autograder.sandbox.inprocess import InProcessTransport, load_namespace

INJECTED = "the walk failed here on purpose"
ASSIGNMENT, FUNCTION = "01_immutable_updates", "set_element"


@pytest.fixture
def broken_walk(monkeypatch):
    def broken(operation):
        raise RuntimeError(INJECTED)

    monkeypatch.setattr(module_walk, "_largest_result", broken)


def _assert_the_kits_failure(feedback: str) -> None:
    assert INJECTED in feedback
    assert messages.text("call.hint", hint="").strip() not in feedback  # no hint
    assert "(in `" not in feedback  # no place in the student's code
    assert "Write the function with" not in feedback  # no advice on how to write it
    assert "could not read the compiled program" not in feedback  # not the student's unreadable program


def _exported_program() -> bytes:
    import jax
    import jax.numpy as jnp
    from jax import export

    exported = export.export(jax.jit(lambda x: jnp.sin(x) * 2), platforms=["cpu"])(
        jax.ShapeDtypeStruct((3,), jnp.float32))
    return bytes(exported.serialize())


def test_reading_a_parsed_program_fails_as_the_kits_not_as_an_unreadable_program(broken_walk):
    with pytest.raises(KitFault, match=INJECTED):
        ProgramTable().load(_exported_program())


def test_bytes_that_do_not_parse_stay_the_programs_fault():
    from autograder.protocol.program_failures import ProgramRefused

    with pytest.raises(ProgramRefused) as refused:
        ProgramTable().load(b"\x00" * 64)
    assert refused.value.reason == "unreadable"


def test_the_runner_answers_a_kit_fault_and_its_parent_raises_it(broken_walk):
    """The clean-room runner's side (`grade`, nbgrader, Gradescope) and the grading worker's side of its pipe."""
    from autograder.cleanroom import runner
    from autograder.sandbox.program_runner import ConfinedProgramRunner

    answer, _ = runner._load(ProgramTable(), [np.frombuffer(_exported_program(), dtype=np.uint8)])
    assert answer["ok"] is False and INJECTED in answer["kit_fault"] and "refused" not in answer
    parent = object.__new__(ConfinedProgramRunner)
    parent._exchange = lambda request, arrays, cpu_seconds: (answer, [])  # type: ignore[method-assign]
    with pytest.raises(KitFault, match=INJECTED):
        parent._load(_exported_program(), 10.0)


def test_the_graders_checks_say_internal_error_without_a_hint(broken_walk, config):
    result = grade_submission(solution_notebook(ASSIGNMENT, REPO), config,
                              GradingOptions(seed=2026, sandbox="inprocess", functions={FUNCTION}))
    failed = [c for c in result.checks if not c.passed]
    assert failed and all(c.prop.startswith("jittable") for c in failed), [(c.prop, c.feedback) for c in failed]
    assert any(c.passed for c in result.checks)  # the values, read without a program, are the student's
    for check in failed:
        assert check.feedback.startswith(messages.text("report.internal_error", error_type="KitFault",
                                                       error="")[:30]), check.feedback
        _assert_the_kits_failure(check.feedback)


def test_a_failure_in_the_childs_kit_code_is_the_kits(monkeypatch, config):
    """ErrorKind.KIT crosses the child's pipe: the grader raises KitFault, never StudentCodeError."""
    from autograder.child import older_jax_exports

    def failing(*args):
        raise KitFault(INJECTED)

    monkeypatch.setattr(older_jax_exports, "needs_key_data", failing)
    namespace, report = load_namespace(read(solution_notebook(ASSIGNMENT, REPO)), 60)
    submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
    with pytest.raises(KitFault, match=INJECTED):
        submission.trace(FUNCTION, [np.zeros(3, np.float32), 1, np.float32(2)], {})


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_student_package_says_what_to_report(broken_walk, monkeypatch, language, config):
    from autograder.student import jax_support, recording, replay

    monkeypatch.undo()  # record with the kit intact, as a release does
    record, arrays = recording.record_assignment(ASSIGNMENT, config, solution_notebook(ASSIGNMENT, REPO), STUDENT_SEED,
                                                 {FUNCTION})
    monkeypatch.setattr(module_walk, "_largest_result", lambda operation: (_ for _ in ()).throw(RuntimeError(INJECTED)))
    namespace, report = load_namespace(read(solution_notebook(ASSIGNMENT, REPO)), 60)
    with messages.using(language):
        checks = replay.replay(record, arrays, Submission(InProcessTransport(namespace, report, 30, 240), report.notes),
                               {FUNCTION})
        failed = [c for c in checks if not c.passed]
        assert failed and any(c.passed for c in checks)
        for check in failed:
            prefix = messages.text("student.internal_error", error_type="", error="", versions="").split("(")[0]
            assert check.feedback.startswith(prefix), check.feedback
            assert jax_support.versions() in check.feedback
            _assert_the_kits_failure(check.feedback)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_autograder_check_of_the_student_package_says_the_kits_failure_in_one_sentence(monkeypatch, capsys,
                                                                                        language):
    """Whatever the kit raises outside a check (reading the package, a notebook): one sentence on stderr,
    exit status 2, never a traceback or the student's mistake."""
    from autograder.student import cli, jax_support

    def failing(args):
        raise RuntimeError(INJECTED)

    monkeypatch.setattr(cli, "_checked", failing)
    monkeypatch.setenv(messages.LANGUAGE_VARIABLE, language)  # main() sets it: restored after the test
    assert cli.main(["--lang", language, "check", "notebook.ipynb"]) == 2
    said = capsys.readouterr()
    with messages.using(language):
        expected = messages.text("student.kit_failed", error=f"RuntimeError: {INJECTED}",
                                 versions=jax_support.versions())
    assert said.err.strip() == expected and said.out == ""
    assert "Traceback" not in said.err
