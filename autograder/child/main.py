"""The sandbox child: loads one submission and answers the parent's requests.

Forked by child.zygote, which then calls `serve`. It talks only through
two pipes, in framing's data-only messages; the first request, load, brings
the submission's bytes, which the child writes into its own working directory
(in the OS sandbox, its private tmpfs). Whatever the student's code prints
goes to a pipe the parent reads up to a cap and never parses. Before student
code runs it records the grading machinery (child.tamper) and installs an
audit hook (child.audit_guard) as a second layer behind the OS; every
answer reports what student code changed, which is undone at once.
"""

from __future__ import annotations

import os

from autograder.catalog import messages
from autograder.child import audit_guard, compiled_programs, mlir_context, tamper
from autograder.child.cell_execution import LoadReport, execute_cells
from autograder.child.executor import Executor, failure
from autograder.load.submission_source import SubmissionError, read
from autograder.protocol import framing, program_store, requests
from autograder.protocol.errors import ChildError, ErrorKind

# The only file names a submission is written under: nothing of the original name reaches the disk.
_SUBMISSION_NAMES = {name: name for name in ("submission.ipynb", "submission.py")}


def _prepare(request: requests.Load, arrays: list, snapshot: tamper.Snapshot) -> tamper.Snapshot:
    """Before any student code: write the submission, take JAX's shared programs, then install the audit hook."""
    snapshot = _start_devices(request.cpu_devices, snapshot)
    name = _SUBMISSION_NAMES.get(request.name, "submission.py")
    with open(name, "wb") as handle:
        if arrays:
            handle.write(arrays[0].tobytes())
    snapshot = compiled_programs.use_in_child(request.compilation_cache, snapshot, request.programs)
    # A writing child runs the kit's solution only: JAX's cache entries (one file per program) are not
    # capped like a submission's files, or an assignment with many programs would share only some.
    uncounted = ((os.path.abspath(compiled_programs.CACHE_DIRECTORY),)
                 if request.compilation_cache == program_store.WRITE else ())
    audit_guard.install(os.getcwd(), audit_guard.default_readable(), audit_guard.default_hidden(), uncounted)
    return snapshot


def _start_devices(cpu_devices: int, snapshot: tamper.Snapshot) -> tamper.Snapshot:
    """Start JAX's backend with the grader's device count, before any student code.

    The count is fixed once the backend starts, so a notebook's setup line that asks for another count
    raises, and one that asks for the same count (`JAX_NUM_CPU_DEVICES`, set in this child's environment
    by the parent) does nothing: the grader, not the notebook, decides how many devices there are.
    Returns the tamper snapshot with this setting in it, so that it is not taken for the student's change.
    """
    if not isinstance(cpu_devices, int) or isinstance(cpu_devices, bool) or cpu_devices < 1:
        return snapshot
    import dataclasses

    import jax

    jax.config.update("jax_num_cpu_devices", cpu_devices)
    jax.devices()
    return dataclasses.replace(snapshot, config=dict(snapshot.config, jax_num_cpu_devices=cpu_devices))


def load(path: str, skip: frozenset[int] = frozenset()) -> tuple[Executor | None, dict]:
    """Execute the submission, except the cell numbers in `skip`; the answer carries the load report."""
    try:
        source = read(path)
    except SubmissionError as error:
        return None, failure(ChildError(ErrorKind.UNREADABLE, message=str(error)))[0]
    namespace: dict = {"__name__": "__main__"}
    try:
        report = execute_cells(source.cells, namespace, skip)
    except KeyboardInterrupt as error:
        report = LoadReport(notes=[f"Top-level code raised KeyboardInterrupt({error})."], not_implemented_cells=[])
    report.notes[:0] = list(source.notes)
    return Executor(namespace, report), {"ok": True, "report": report.to_json()}


def serve(request_fd: int, response_fd: int, snapshot: tamper.Snapshot | None = None) -> None:
    """Answer requests until the parent closes the pipe.

    `snapshot` is the zygote's record of the grading machinery, taken before
    it forked this child.
    """
    import jax  # noqa: F401  (imported before student code, so its time is not the student's)
    import jax.numpy  # noqa: F401

    mlir_context.reuse_one_per_thread()
    if snapshot is None:
        snapshot = tamper.take()
    executor = None
    while True:
        try:
            header, arrays = framing.read_message(request_fd)
        except framing.ChannelClosed:
            return
        try:
            request = requests.parse(header)
        except requests.RequestError as error:
            request = None
            answer, out = failure(ChildError(ErrorKind.BAD_REQUEST, message=str(error)))
        if isinstance(request, requests.Load) and executor is None:
            messages.choose(request.language)  # notes made while loading are in the grade's language
            snapshot = _prepare(request, arrays, snapshot)
            executor, answer = load(_SUBMISSION_NAMES.get(request.name, "submission.py"), frozenset(request.skip_cells))
            out = []
        elif isinstance(request, requests.CompiledPrograms):
            answer, out = compiled_programs.written_in_child()
        elif request is None:
            pass
        elif executor is None:
            answer, out = failure(ChildError(ErrorKind.BAD_REQUEST, message="not loaded"))
        else:
            answer, out = executor.handle(request, arrays)
        changes = tamper.find_and_undo(snapshot)
        if changes:
            answer = dict(answer, tampered=changes)
        try:
            framing.write_message(response_fd, answer, out)
        except framing.WireFormatError as error:
            framing.write_message(response_fd, *failure(ChildError(ErrorKind.BAD_OUTPUT, message=str(error))))


