"""The in-process backend: student code runs in this process.

Used by notebook check cells, `autograder check` and nbgrader's autograde.
Convenient and fast, but not tamper-proof: the checks share a process with
the code they check (`autograder grade` uses the sandbox instead). Requests
still go through the same Executor and the same data-only encoding as the
sandbox, so both backends grade identically.
"""

from __future__ import annotations

import contextlib
import io
import json
import time

import numpy as np

from autograder.catalog import messages
from autograder.child.cell_execution import LoadReport, execute_cells
from autograder.child.executor import Executor
from autograder.child.time_limits import TimeLimitExceeded, time_limit
from autograder.load.submission_source import SubmissionSource
from autograder.protocol import requests
from autograder.protocol.errors import ErrorKind, TransportFailure


class InProcessTransport:
    """Hands requests straight to an Executor over `namespace`."""

    def __init__(self, namespace: dict, load_report: LoadReport, call_seconds: float, submission_seconds: float):
        self.call_seconds = call_seconds
        self.submission_seconds = submission_seconds
        self._executor = Executor(namespace, load_report, guard=lambda: time_limit(call_seconds))
        self._deadline = time.monotonic() + submission_seconds

    def request(self, request: requests.Request, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]:
        if time.monotonic() > self._deadline:
            raise TransportFailure(ErrorKind.BUDGET)
        # Round-trip through JSON and copies so student code sees exactly
        # what the sandbox child would, and cannot alias the test's data.
        with _captured_output():
            crossed = requests.parse(json.loads(json.dumps(requests.header(request))))
            answer, out = self._executor.handle(crossed, [a.copy() for a in arrays])
        return json.loads(json.dumps(answer)), [np.array(a, copy=True) for a in out]


def load_namespace(source: SubmissionSource, load_seconds: float,
                   skip: frozenset[int] = frozenset()) -> tuple[dict, LoadReport]:
    """Execute the submission's cells here, in a fresh namespace, except the cell numbers in `skip`."""
    namespace: dict = {"__name__": "__main__"}
    try:
        with time_limit(load_seconds), _captured_output():
            report = execute_cells(source.cells, namespace, skip)
    except TimeLimitExceeded:
        report = LoadReport(notes=[messages.text("load.timeout", seconds=load_seconds)], not_implemented_cells=[])
    report.notes[:0] = list(source.notes)
    return namespace, report


@contextlib.contextmanager
def _captured_output():
    """Keep what student code prints out of the grader's own output."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield sink
