"""The requests the grading worker sends to the clean-room runner (cleanroom.runner), one dataclass each.

They cross the pipe as framing messages: a JSON header and arrays. A
`LoadProgram` carries a serialized `jax.export` program as its one uint8
array; a `RunProgram` names a loaded program by its handle and carries the
inputs as a wire_format skeleton and arrays. Every request has a CPU-time
limit that the runner sets on itself (RLIMIT_CPU) before it starts.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Union

from autograder.protocol.requests import RequestError


@dataclasses.dataclass(frozen=True)
class LoadProgram:
    """Deserialize and parse the program (the request's one array, its bytes); answers its handle and facts."""

    op: ClassVar[str] = "load_program"
    cpu_seconds: float


@dataclasses.dataclass(frozen=True)
class RunProgram:
    """Compile (once) and run the loaded program `handle` on the inputs; answers the outputs."""

    op: ClassVar[str] = "run_program"
    handle: str
    args_skeleton: Any  # {"args": [...], "kwargs": {...}}: the traced arguments only, encoded by wire_format
    cpu_seconds: float
    gradient: bool = False  # answer jax.grad of the output's sum with respect to the first argument instead


ProgramRequest = Union[LoadProgram, RunProgram]
_BY_OP: dict[str, Any] = {cls.op: cls for cls in (LoadProgram, RunProgram)}


def header(request: ProgramRequest) -> dict:
    """The JSON header that carries `request` over the pipe."""
    return {"op": request.op, **{f.name: getattr(request, f.name) for f in dataclasses.fields(request)}}


def parse(raw: object) -> ProgramRequest:
    """The request a header describes; RequestError for an unknown op, field or a limit that is not a number."""
    if not isinstance(raw, dict):
        raise RequestError(f"a request header must be a JSON object, not {type(raw).__name__}")
    cls = _BY_OP.get(raw.get("op"))  # type: ignore[arg-type]
    if cls is None:
        raise RequestError(f"unknown op {raw.get('op')!r}; expected one of {sorted(_BY_OP)}")
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - known - {"op"})
    if unknown:
        raise RequestError(f"{cls.op} has no field {unknown[0]!r}; its fields are {sorted(known)}")
    seconds = raw.get("cpu_seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 < seconds <= 3600:
        raise RequestError(f"{cls.op}.cpu_seconds must be a number of seconds in (0, 3600], got {seconds!r}")
    try:
        return cls(**{k: v for k, v in raw.items() if k != "op"})
    except TypeError as error:
        raise RequestError(f"{cls.op}: {error}") from None
