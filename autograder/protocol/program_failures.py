"""How loading or running an exported program can fail, for both sides of the clean room.

`ProgramRefused`: the runner read the program and will not run it (the
reason is one of REFUSAL_REASONS). `ProgramRunFailed`: the request did not
complete (a limit, a crash, garbage, the program's own error). The grader's
side turns each into one sentence for the student (check.submission).
"""

from __future__ import annotations

REFUSAL_REASONS = ("unreadable", "too_large", "platform", "devices", "callback", "custom_call", "operation",
                   "dynamic_shape")
RUN_FAILURES = ("cpu_limit", "stalled", "wall_clock", "crashed", "bad_output", "raised", "unavailable")


class ProgramRefused(ValueError):
    """The program cannot be run by the grader; `reason` (one of REFUSAL_REASONS) says why, `detail` what it holds."""

    def __init__(self, reason: str, detail: str = ""):
        if reason not in REFUSAL_REASONS:
            raise ValueError(f"reason must be one of {REFUSAL_REASONS}, got {reason!r}")
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


class ProgramRunFailed(RuntimeError):
    """A request to the runner did not complete; `kind` (one of RUN_FAILURES) says how.

    "cpu_limit": the program used its CPU time (`seconds`); "stalled": the runner used no CPU for
    as long as its CPU-time limit (`seconds`), waiting instead of computing; "wall_clock": no answer
    while the machine was too busy to run it (`seconds`: the backstop); "crashed": the runner died
    otherwise (`detail` names the signal or exit code); "bad_output": an answer that is not
    well-formed; "raised": the program failed (`error_type`, `detail`); "unavailable": no runner
    could be started.
    """

    def __init__(self, kind: str, detail: str = "", error_type: str = "", seconds: float = 0.0):
        if kind not in RUN_FAILURES:
            raise ValueError(f"kind must be one of {RUN_FAILURES}, got {kind!r}")
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind, self.detail, self.error_type, self.seconds = kind, detail, error_type, seconds
