"""The sandbox child: loads one submission and answers the parent's requests.

Forked by sandbox.zygote, which then calls `serve`. It talks only through
two pipes, in framing's data-only messages; the first request, load, brings
the submission's bytes, which the child writes into its own working directory
(in the OS sandbox, its private tmpfs). Whatever the student's code prints
goes to a pipe the parent reads up to a cap and never parses. Before student
code runs it records the grading machinery (sandbox.tamper) and installs an
audit hook (sandbox.audit_guard) as a second layer behind the OS; every
answer reports what student code changed, which is undone at once.
"""

from __future__ import annotations

import os

from autograder import messages
from autograder.cell_execution import LoadReport, execute_cells
from autograder.executor import Executor
from autograder.sandbox import audit_guard, framing, shared_programs, tamper
from autograder.submission_source import SubmissionError, read

# The only file names a submission is written under: nothing of the original name reaches the disk.
_SUBMISSION_NAMES = {name: name for name in ("submission.ipynb", "submission.py")}


def _prepare(header: dict, arrays: list, snapshot: tamper.Snapshot) -> tamper.Snapshot:
    """Before any student code: write the submission, take JAX's shared programs, then install the audit hook."""
    name = _SUBMISSION_NAMES.get(str(header.get("name")), "submission.py")
    with open(name, "wb") as handle:
        if arrays:
            handle.write(arrays[0].tobytes())
    programs = header.get("programs")
    snapshot = shared_programs.use_in_child(header.get("compilation_cache"), snapshot,
                                            programs if isinstance(programs, str) else None)
    audit_guard.install(os.getcwd(), audit_guard.default_readable(), audit_guard.default_hidden())
    return snapshot


def load(path: str, skip: frozenset[int] = frozenset()) -> tuple[Executor | None, dict]:
    """Execute the submission, except the cell numbers in `skip`; the answer carries the load report."""
    try:
        source = read(path)
    except SubmissionError as error:
        return None, {"ok": False, "error": {"kind": "unreadable", "message": str(error)}}
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

    if snapshot is None:
        snapshot = tamper.take()
    executor = None
    while True:
        try:
            header, arrays = framing.read_message(request_fd)
        except framing.ChannelClosed:
            return
        if header.get("op") == "load" and executor is None:
            if isinstance(header.get("language"), str):
                messages.choose(header["language"])  # notes made while loading are in the grade's language
            snapshot = _prepare(header, arrays, snapshot)
            skip = header.get("skip_cells")
            skip = frozenset(n for n in skip if isinstance(n, int)) if isinstance(skip, list) else frozenset()
            executor, answer = load(_SUBMISSION_NAMES.get(str(header.get("name")), "submission.py"), skip)
            out: list = []
        elif header.get("op") == "compiled_programs":
            answer, out = shared_programs.written_in_child()
        elif executor is None:
            answer, out = {"ok": False, "error": {"kind": "bad_request", "message": "not loaded"}}, []
        else:
            answer, out = executor.handle(header, arrays)
        changes = tamper.find_and_undo(snapshot)
        if changes:
            answer = dict(answer, tampered=changes)
        try:
            framing.write_message(response_fd, answer, out)
        except framing.WireFormatError as error:
            framing.write_message(response_fd, {"ok": False, "error": {"kind": "bad_output", "message": str(error)}},
                                  [])


