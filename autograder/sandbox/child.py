"""The sandbox child: loads one submission and answers the parent's requests.

Started by sandbox.parent as `python -I -m autograder.sandbox.child REQ_FD RESP_FD`,
or forked by sandbox.zygote, which then calls `serve` itself.
It talks only through those two pipes, in framing's data-only messages;
whatever the student's code prints goes to a capture file the parent never
parses. Before student code runs it records the grading machinery
(sandbox.tamper) and confines itself (sandbox.audit_guard); every answer
reports what student code changed, which is undone at once.
"""

from __future__ import annotations

import os
import sys

from autograder.cell_execution import LoadReport, execute_cells
from autograder.executor import Executor
from autograder.sandbox import audit_guard, framing, shared_programs, tamper
from autograder.submission_source import SubmissionError, read


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
    it forked this child; a spawned child takes its own.
    """
    import jax  # noqa: F401  (imported before student code, so its time is not the student's)
    import jax.numpy  # noqa: F401

    if snapshot is None:
        snapshot = tamper.take()
    audit_guard.install(os.getcwd(), audit_guard.default_readable(), audit_guard.default_hidden())
    executor = None
    while True:
        try:
            header, arrays = framing.read_message(request_fd)
        except framing.ChannelClosed:
            return
        if header.get("op") == "load":
            snapshot = shared_programs.use_in_child(header.get("compilation_cache"), snapshot)
            skip = header.get("skip_cells")
            skip = frozenset(n for n in skip if isinstance(n, int)) if isinstance(skip, list) else frozenset()
            executor, answer = load(str(header.get("path")), skip)
            out = []
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
            framing.write_message(response_fd, {"ok": False, "error": {"kind": "bad_output", "message": str(error)}}, [])


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
