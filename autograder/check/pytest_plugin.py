"""The pytest plugin that binds an assignment's suite to one submission.

It provides the `submission`, `rng` and `sizes` fixtures, keeps only the checks of
the requested functions, and records each check's outcome with the feedback
a student should read (not a traceback).
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import zlib
from typing import AbstractSet

import numpy as np
import pytest

from autograder.catalog import messages
from autograder.check.failure import Failure, FailureKind, failure_of, render
from autograder.check.function_claims import FunctionClaims
from autograder.check.submission import Submission

# Hidden sizes come from one of this many generators per check, chosen by the seed: values
# are new with every seed, shapes repeat, so a new seed reuses the programs JAX compiled
# for an earlier one (JAX compiles per shape and dtype, never per value). A student's
# `check` uses one of them only (`one_shape_set`): every check after the first is fast.
SHAPE_SETS = 3
_shape_sets: contextvars.ContextVar[int] = contextvars.ContextVar("autograder_shape_sets", default=SHAPE_SETS)


def sizes_for(seed: int, name: str) -> np.random.Generator:
    """The generator of the sizes named `name` under `seed`: one of SHAPE_SETS, hidden like the seed.

    The `sizes` fixture is `sizes_for(seed, <graded function>)`; call this to
    share sizes among the checks of several functions, or at module level.

    Args:
        seed: the run's seed (the `seed` fixture).
        name: what the sizes are for, usually the graded function's name.

    Returns:
        A `numpy.random.Generator`: draw shapes from it, values from `rng`.
    """
    return np.random.default_rng([seed % _shape_sets.get(), zlib.crc32(f"{name}.sizes".encode())])


@contextlib.contextmanager
def one_shape_set():
    """Inside the block, sizes come from one set whatever the seed (a student's checks; values stay random)."""
    token = _shape_sets.set(1)
    try:
        yield
    finally:
        _shape_sets.reset(token)


def graded(function: str, prop: str):
    """Mark a test as the check of `prop` for the student's `function`.

    The points are `grading.toml`'s `[assignments.<a>.<function>]` entry
    `"<prop>"`; reports name the check "<function>: <prop>".

    Args:
        function: the student's function, by name.
        prop: the graded property ("correct", "jittable", "compiles once"...).

    Returns:
        A pytest mark: `@graded("safe_log", "jittable")`. A failed check shows
        the student its AssertionError's message, never a traceback.
    """
    return pytest.mark.graded(function=function, prop=prop)


@dataclasses.dataclass
class CheckOutcome:
    function: str
    prop: str
    passed: bool
    failure: Failure | None = None  # what it failed with; None when it passed

    @property
    def feedback(self) -> str:
        """What the student reads, rendered from the failure in the catalog's language now."""
        return render(self.failure) if self.failure is not None else ""

    @property
    def wrong_values(self) -> bool:
        """It failed comparing the function's values, before its own property."""
        return self.failure is not None and self.failure.on_wrong_values

    @property
    def failed_with(self) -> Failure | None:
        """What it failed with (a failure without feedback if it failed unexplained); None if it passed."""
        if self.passed:
            return None
        return self.failure if self.failure is not None else Failure("")

    def failing_with(self, failure: Failure) -> CheckOutcome:
        return dataclasses.replace(self, failure=failure)


class GradingPlugin:
    def __init__(self, submission: Submission | None, seed: int, functions: AbstractSet[str] | None = None,
                 claims: FunctionClaims | None = None):
        self._submission = submission
        self._seed = seed
        self._functions = functions
        self._claims = claims
        self.outcomes: dict[str, CheckOutcome] = {}
        self._marks: dict[str, tuple[str, str]] = {}

    def begin(self, submission: Submission, seed: int) -> None:
        """Grade `submission` next (a session that serves many, see suite_session)."""
        self._submission, self._seed = submission, seed
        self.outcomes = {}

    def selects(self, item, functions: AbstractSet[str] | None) -> bool:
        """Whether `item` checks one of `functions` (None: all of them)."""
        function_prop = self._marks.get(item.nodeid)
        return function_prop is not None and (functions is None or function_prop[0] in functions)

    @pytest.fixture(scope="session")
    def submission(self) -> Submission:
        if self._submission is None:
            raise RuntimeError("no submission to grade: begin() was not called")
        return self._submission

    @pytest.fixture
    def rng(self, request) -> np.random.Generator:
        """Hidden inputs: a generator seeded by the run's seed and the test's name."""
        return np.random.default_rng([self._seed, zlib.crc32(request.node.name.encode())])

    @pytest.fixture
    def sizes(self, request) -> np.random.Generator:
        """Hidden shapes and other compile-time sizes: from a small fixed set (see SHAPE_SETS).

        Every check of one function starts from the same generator, so their
        first draws agree and the checks share shapes (and compiled programs).
        """
        return sizes_for(self._seed, request.node.get_closest_marker("graded").kwargs["function"])

    @pytest.fixture
    def seed(self) -> int:
        return self._seed

    def pytest_configure(self, config) -> None:
        config.addinivalue_line("markers", "graded(function, prop): the graded property a test checks")

    def pytest_collection_modifyitems(self, config, items) -> None:
        kept = []
        for item in items:
            mark = item.get_closest_marker("graded")
            if mark is None:
                raise pytest.UsageError(f"{item.nodeid} has no @graded(function, prop) marker")
            function, prop = mark.kwargs["function"], mark.kwargs["prop"]
            if self._functions is None or function in self._functions:
                self._marks[item.nodeid] = (function, prop)
                kept.append(item)
        claims = self._claims
        if claims is not None:  # stable: each function's own checks keep their order
            kept.sort(key=lambda item: claims.rank(self._marks[item.nodeid][0]))
        items[:] = kept

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session):
        """With claims, pytest's own loop over the checks of the functions this process takes, each taken as the
        loop comes to it. Every check runs knowing the next check that will run, which pytest's teardown of
        module and class fixtures needs. Without claims, pytest's loop (None)."""
        if self._claims is None or session.testsfailed or session.config.option.collectonly:
            return None
        claims = self._claims
        taken = (item for item in session.items if claims.take(self._marks[item.nodeid][0]))
        item = next(taken, None)
        while item is not None:
            following = next(taken, None)
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=following)
            if session.shouldfail:
                raise session.Failed(session.shouldfail)
            if session.shouldstop:
                raise session.Interrupted(session.shouldstop)
            item = following
        return True

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        function_prop = self._marks.get(item.nodeid)
        if function_prop is not None and (report.when == "call" or report.failed):
            self._record(item.nodeid, function_prop, report.passed, call.excinfo)
        return report

    def _record(self, nodeid: str, function_prop: tuple[str, str], passed: bool, excinfo) -> None:
        if nodeid in self.outcomes and not self.outcomes[nodeid].passed:
            return  # keep the first failure (setup before teardown)
        failure = None
        if not passed and excinfo is not None:
            error = excinfo.value
            if isinstance(error, AssertionError):
                failure = failure_of(error)
            else:
                failure = Failure(messages.text("report.internal_error", error_type=type(error).__name__,
                                                error=str(error)[:500]), FailureKind.INTERNAL)
        self.outcomes[nodeid] = CheckOutcome(*function_prop, passed=passed, failure=failure)
