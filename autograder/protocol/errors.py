"""What can go wrong on the student's side, as one kind of error with a fixed set of kinds.

The child describes a failure as a `ChildError` (data, sent over the pipe);
the transport raises `TransportFailure` when the child cannot answer at all.
Both name their `ErrorKind`, and the parent turns each kind into feedback
in one table (check.submission). The parent reads a `ChildError` with
`from_wire`, which trusts nothing about the shape of what arrived.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from autograder.protocol.sentences import from_wire, to_wire

MAX_TEXT = 2000
MAX_ITEMS = 20


class ErrorKind(enum.Enum):
    """Why a request got no answer from student code."""

    MISSING = "missing"  # the function is not defined in the submission
    NOT_CALLABLE = "not_callable"  # the name is defined but is not a function
    RAISED = "raised"  # student code raised an exception
    TIMEOUT = "timeout"  # one call took longer than its limit
    BUDGET = "budget"  # the submission used up its total time
    BUSY = "busy"  # the machine was too busy: the wall-clock backstop ran out before the CPU-time limit
    EXITED = "exited"  # the student's process ended (sys.exit, a crash, a signal)
    LOAD_FAILED = "load_failed"  # the submission could not be loaded at all
    UNREADABLE = "unreadable"  # the submission file could not be read as code cells
    TAMPERED = "tampered"  # student code changed the grading machinery during the request
    HOST_CALLBACK = "host_callback"  # the function calls back into Python, which cannot be exported
    BAD_OUTPUT = "bad_output"  # the answer cannot cross the boundary (not plain data)
    BAD_REQUEST = "bad_request"  # the grader asked for something the child does not know
    KIT = "kit"  # the kit's own work on the student's side failed (KitFault), not the student's code


class KitFault(Exception):
    """The kit's own code failed, or asked of JAX what this JAX cannot do: never the student's mistake.

    Raised where the kit, not student code, does the work (importing jax.export, reading a parsed
    program, serializing on an older JAX); crosses the child's pipe as ErrorKind.KIT and the runner's as
    its own answer, and ends as the check's internal error (`report.internal_error`), with no hint.
    """


@dataclasses.dataclass(frozen=True)
class ChildError:
    """A failure on the student's side, as the child reports it.

    Only the fields of its kind are set: `type`, `mro`, `where` for RAISED;
    `changes` for TAMPERED; `type_name` for NOT_CALLABLE;
    `not_implemented_cells`, `load_problems`, `similar` for MISSING; `stub` for RAISED when the
    released stub's own `raise NotImplementedError` raised it (decided by the child from the parsed cells).
    """

    kind: ErrorKind
    message: str = ""
    function: str = ""
    type: str = ""
    mro: tuple[str, ...] = ()
    where: dict | None = None  # {"function": str, "line": int}, checked where it is read
    changes: tuple[str, ...] = ()
    type_name: str = ""
    not_implemented_cells: tuple[int, ...] = ()
    load_problems: tuple[str, ...] = ()
    similar: tuple[str, ...] = ()
    stub: bool = False

    def to_wire(self) -> dict:
        """The JSON-able form sent over the pipe."""
        wire: dict[str, Any] = {"kind": self.kind.value}
        for field in dataclasses.fields(self)[1:]:
            value = getattr(self, field.name)
            if value != field.default:
                wire[field.name] = list(value) if isinstance(value, tuple) else value
        if self.load_problems:  # the child's notes: each with its catalog reference (protocol.sentences)
            wire["load_problems"] = [to_wire(problem) for problem in self.load_problems]
        return wire

    @classmethod
    def from_wire(cls, raw: object) -> ChildError:
        """Read what the child sent; anything malformed becomes a BAD_OUTPUT error saying so."""
        if not isinstance(raw, dict):
            return cls(ErrorKind.BAD_OUTPUT, message="the grading process sent a malformed error")
        try:
            kind = ErrorKind(raw.get("kind"))
        except ValueError:
            return cls(ErrorKind.BAD_OUTPUT, message=f"unknown error kind {_text(raw.get('kind'))[:40]!r}")
        where = raw.get("where")
        return cls(kind, message=_text(raw.get("message")), function=_text(raw.get("function")),
                   type=_text(raw.get("type")), mro=_texts(raw.get("mro")),
                   where=where if isinstance(where, dict) else None, changes=_texts(raw.get("changes")),
                   type_name=_text(raw.get("type_name")),
                   not_implemented_cells=tuple(n for n in _items(raw.get("not_implemented_cells"))
                                               if type(n) is int),
                   load_problems=tuple(_sentence(p) for p in _items(raw.get("load_problems"))
                                       if isinstance(p, (str, dict))),
                   similar=_texts(raw.get("similar")),
                   stub=raw.get("stub") is True)

    @property
    def is_not_implemented(self) -> bool:
        """The student's function is still the released stub: its own `raise NotImplementedError` raised.

        A NotImplementedError the student raises elsewhere is their error, shown with its message.
        """
        return self.kind is ErrorKind.RAISED and self.stub and self.mro[:1] == ("NotImplementedError",)


class TransportFailure(Exception):
    """The student's process could not answer at all: TIMEOUT, BUDGET, BUSY, EXITED or LOAD_FAILED."""

    def __init__(self, kind: ErrorKind, detail: str = ""):
        super().__init__(f"{kind.value}: {detail}")
        self.kind = kind
        self.detail = detail


def _text(value: object) -> str:
    return value[:MAX_TEXT] if isinstance(value, str) else ""


def _items(value: object) -> list:
    return value[:MAX_ITEMS] if isinstance(value, list) else []


def _sentence(value: object) -> str:
    """A note of the child's (protocol.sentences), cut to MAX_TEXT like any text (a sentence that fits keeps its
    reference)."""
    said = from_wire(value)
    return said if len(said) <= MAX_TEXT else said[:MAX_TEXT]


def _texts(value: object) -> tuple[str, ...]:
    return tuple(_text(item) for item in _items(value) if isinstance(item, str))
