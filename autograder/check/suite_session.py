"""One pytest session that grades a stream of submissions (the batch workers' runner).

runner.run_checks starts pytest once per submission: configuration, plugin
loading and collection cost about 0.1 s each time, as long as grading a stub
takes. A batch worker instead starts pytest once, collects every suite once,
and then, from inside the session's test loop, runs one assignment's checks
per submission. Each submission's run ends with a full teardown
(nextitem=None, the way pytest ends a session), so no fixture value outlives
its submission: every submission is graded as if by a session of its own.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import AbstractSet, Callable

import pytest

from autograder.check import runner
from autograder.check.pytest_plugin import CheckOutcome, GradingPlugin
from autograder.check.submission import Submission

RunChecks = Callable[[str, Submission, int, "set[str] | None"], "list[CheckOutcome]"]


def serve(assignments: list[str], work: Callable[[RunChecks], None]) -> None:
    """Collect the suites of `assignments`, then call `work(run_checks)` inside the session.

    `run_checks(assignment, submission, seed, functions)` has runner.run_checks'
    meaning, for any assignment: one whose suite this session did not collect
    runs in a pytest run of its own (runner.run_checks), as slow as that is
    (collecting every suite costs a worker about 1 s; a batch collects those
    its submissions' names suggest). Returns when `work` does; re-raises what
    `work` raised.
    """
    session = _Session(work)
    suites = [str(runner.suite_path(a)) for a in assignments if runner.suite_path(a).exists()]
    session.collected = {Path(suite).resolve() for suite in suites}
    # A suite that does not import fails its own submissions, not the others'.
    args = [*suites, *runner.PYTEST_OPTIONS, "--continue-on-collection-errors"]
    with runner.no_plugin_autoload(), contextlib.redirect_stdout(session.output):
        pytest.main(args, plugins=[session.grading, session])
    if session.error is not None:
        raise session.error
    if not session.served:
        raise RuntimeError(f"the grading session did not start:\n{session.output.getvalue()[-3000:]}")


class _Session:
    """The plugin that turns pytest's test loop into a grading loop."""

    def __init__(self, work: Callable[[RunChecks], None]):
        self._work = work
        self.grading = GradingPlugin(None, 0)
        self.error: BaseException | None = None
        self.served = False
        self.output = _Tail()
        self._broken: dict[Path, str] = {}
        self._session: pytest.Session | None = None
        self.collected: set[Path] = set()

    def pytest_collectreport(self, report) -> None:
        if report.failed and report.nodeid:
            # A course's own suite lies outside the kit's rootdir: its node id climbs out of it ("../").
            self._broken[(runner.SUITES / report.nodeid).resolve()] = str(report.longrepr)[-3000:]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtestloop(self, session) -> bool:
        self._session, self.served = session, True
        try:
            self._work(self.run_checks)
        except BaseException as error:  # handed back to serve(), outside pytest
            self.error = error
        return True  # the default loop must not run the collected items once more

    def run_checks(self, assignment: str, submission: Submission, seed: int,
                   functions: AbstractSet[str] | None = None) -> list[CheckOutcome]:
        suite = runner.suite_path(assignment).resolve()
        session = self._session
        if session is None:
            raise RuntimeError("run_checks is only called from inside pytest's test loop")
        if suite not in self.collected:
            return runner.run_checks(assignment, submission, seed, functions)
        if suite in self._broken:
            raise RuntimeError(f"the {assignment} suite could not run:\n{self._broken[suite]}")
        items = [item for item in session.items
                 if Path(item.path).resolve() == suite and self.grading.selects(item, functions)]
        self.grading.begin(submission, seed)
        for index, item in enumerate(items):
            nextitem = items[index + 1] if index + 1 < len(items) else None  # None: tear down everything
            item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        if session.shouldfail or session.shouldstop:
            raise RuntimeError(f"the {assignment} suite stopped the session: "
                               f"{session.shouldfail or session.shouldstop}")
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.stats.clear()  # reports of finished submissions would pile up for the whole batch
        return list(self.grading.outcomes.values())


class _Tail(io.StringIO):
    """What pytest prints, keeping only the end (a long session prints a little per check)."""

    LIMIT = 20_000

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.tell() > 2 * self.LIMIT:
            kept = self.getvalue()[-self.LIMIT:]
            self.seek(0)
            self.truncate()
            super().write(kept)
        return written
