"""The in-process backend: student code runs in this process.

Used by notebook check cells, `autograder check` and nbgrader's autograde.
Convenient and fast, but not tamper-proof: the checks share a process with
the code they check (`autograder grade` uses the sandbox instead). Requests
still go through the same Executor and the same data-only encoding as the
sandbox, so both backends grade identically.

Limits are CPU time of this whole process (child.time_limits), with a
wall-clock backstop of ten times each: a busy laptop does not fail a check.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import time

import numpy as np

from autograder.catalog import messages
from autograder.child import mlir_context
from autograder.child.cell_execution import LoadReport, execute_cells
from autograder.child.executor import Executor
from autograder.child.time_limits import DEFAULT_BUSY_FACTOR, MachineTooBusy, TimeLimitExceeded, time_limit
from autograder.load.submission_source import SubmissionSource
from autograder.protocol import requests
from autograder.protocol.errors import ErrorKind, TransportFailure


class InProcessTransport:
    """Hands requests straight to an Executor over `namespace`."""

    def __init__(self, namespace: dict, load_report: LoadReport, call_seconds: float, submission_seconds: float,
                 busy_factor: float = DEFAULT_BUSY_FACTOR):
        self.call_seconds = call_seconds
        self.submission_seconds = submission_seconds
        self._executor = Executor(namespace, load_report, guard=lambda: time_limit(call_seconds, busy_factor))
        # The budget is this process's CPU time (the checks' own work included); wall-clock time only backs it.
        self._cpu_deadline = time.process_time() + submission_seconds
        self._wall_deadline = time.monotonic() + submission_seconds * busy_factor
        self._mlir_context = mlir_context.SharedContext()

    def one_mlir_context(self) -> contextlib.AbstractContextManager[None]:
        """Inside the block, every program this thread lowers uses this transport's MLIR context: the checks'
        own programs too (the exported programs they parse and run here), not only the requests'."""
        return self._mlir_context.installed()

    def request(self, request: requests.Request, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]:
        if time.process_time() > self._cpu_deadline:
            raise TransportFailure(ErrorKind.BUDGET)
        if time.monotonic() > self._wall_deadline:
            raise TransportFailure(ErrorKind.BUSY)
        # Round-trip through JSON and copies so student code sees exactly
        # what the sandbox child would, and cannot alias the test's data.
        with _captured_output(), self._mlir_context.installed():
            crossed = requests.parse(json.loads(json.dumps(requests.header(request))))
            answer, out = self._executor.handle(crossed, [a.copy() for a in arrays])
        return json.loads(json.dumps(answer)), [np.array(a, copy=True) for a in out]


def load_namespace(source: SubmissionSource, load_seconds: float, skip: frozenset[int] = frozenset(),
                   busy_factor: float = DEFAULT_BUSY_FACTOR) -> tuple[dict, LoadReport]:
    """Execute the submission's cells here, in a fresh namespace, except the cell numbers in `skip`."""
    namespace: dict = {"__name__": "__main__"}
    try:
        with time_limit(load_seconds, busy_factor), _captured_output(), _devices_as_they_are():
            report = execute_cells(source.cells, namespace, skip)
    except MachineTooBusy:
        note = messages.text("load.busy", seconds=load_seconds * busy_factor)
        report = LoadReport(notes=[note], not_implemented_cells=[])
    except TimeLimitExceeded as limit:  # "stalled": it slept or waited past the backstop
        key = "load.stalled" if str(limit) == "stalled" else "load.timeout"
        report = LoadReport(notes=[messages.text(key, seconds=load_seconds)], not_implemented_cells=[])
    report.notes[:0] = list(source.notes)
    return namespace, report


@contextlib.contextmanager
def _devices_as_they_are():
    """While the cells run, `JAX_NUM_CPU_DEVICES` is this process's device count once its JAX backend has
    started: a notebook's setup line that defers to it (10_parallel's) then asks for the count there is,
    which is let through as already in effect (JAX itself refuses any count once the backend runs). Before the
    backend starts (`autograder check` in a fresh process) the notebook chooses its own count."""
    from jax._src import xla_bridge

    if not xla_bridge.backends_are_initialized():
        yield
        return
    import jax

    previous = os.environ.get("JAX_NUM_CPU_DEVICES")
    count = jax.device_count()
    os.environ["JAX_NUM_CPU_DEVICES"] = str(count)
    update = jax.config.update

    def update_unless_in_effect(name, value):
        # JAX refuses any jax_num_cpu_devices once its backend runs, even the count in effect.
        if name == "jax_num_cpu_devices" and str(value) == str(count):
            return None
        return update(name, value)

    jax.config.update = update_unless_in_effect  # type: ignore[method-assign]
    try:
        yield
    finally:
        del jax.config.update  # the instance attribute: Config.update again
        if previous is None:
            os.environ.pop("JAX_NUM_CPU_DEVICES", None)
        else:
            os.environ["JAX_NUM_CPU_DEVICES"] = previous


@contextlib.contextmanager
def _captured_output():
    """Keep what student code prints out of the grader's own output."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        yield sink
