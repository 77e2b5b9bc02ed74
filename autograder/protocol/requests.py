"""The requests the trusted parent sends to the child, one dataclass each.

A request crosses the pipe as its `header()` (JSON) plus the arrays of its
arguments, which travel beside it (wire_format). `parse` rebuilds the
request on the child's side and refuses anything it does not know, so the
child's executor dispatches on types, not on strings.

`function` names a function of the student's namespace, or
`function@harness`: that function inside one of the kit's wrappers
(child.harnesses).
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Union


class RequestError(ValueError):
    """A header that is not a request this protocol knows; the message names the field."""


@dataclasses.dataclass(frozen=True)
class Load:
    """Write the submission (the request's one array, its bytes) and execute its cells."""

    op: ClassVar[str] = "load"
    name: str  # the file name the child writes it under: submission.ipynb or submission.py
    skip_cells: tuple[int, ...] = ()  # unchanged examples nothing graded depends on (load.example_cells)
    compilation_cache: str | None = None  # program_store.READ or WRITE, or None
    programs: str | None = None  # where the batch's shared programs appear to the child
    language: str = "en"  # the language of the notes made while loading
    # CPU devices JAX starts with, before any student code (grading.toml [devices]); 0: JAX's default (one).
    cpu_devices: int = 0


@dataclasses.dataclass(frozen=True)
class CompiledPrograms:
    """The programs JAX compiled in this child, for the batch's shared store (only its first submission)."""

    op: ClassVar[str] = "compiled_programs"


@dataclasses.dataclass(frozen=True)
class Describe:
    """Whether `function` exists, is callable and is a `jax.jit` object."""

    op: ClassVar[str] = "describe"
    function: str


@dataclasses.dataclass(frozen=True)
class Call:
    """Call `function` on the arguments, as written or through a transformation (`mode`); answers its value."""

    op: ClassVar[str] = "call"
    function: str
    args_skeleton: Any  # {"args": tuple, "kwargs": dict}, encoded by wire_format
    mode: str = "plain"  # "plain" | "jit" | "vmap" | "grad_sum"
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    argnums: int | tuple[int, ...] = 0  # for grad_sum
    in_axes: Any = 0  # for vmap: an int, None, or one per positional argument
    key_reuse_check: bool = False
    # Positional arguments placed by rows over "the mesh" (jax.make_mesh((d,), ("data",)), P("data")) first.
    rows_sharded: tuple[int, ...] = ()
    # Also answer where each output leaf lives (protocol.placements), read by the kit from the arrays the call
    # returned: 10_parallel's placements are judged on the function called as the student calls it.
    placements: bool = False
    # Call again with 64-bit floats: float32 arguments widened, under JAX's x64 mode (child/wider_floats.py), to
    # tell float32 rounding from a wrong formula (check/rounding_relation.py).
    wider_floats: bool = False


@dataclasses.dataclass(frozen=True)
class Trace:
    """Trace `function` with its non-static arguments abstract; answers what its jaxpr holds at the top ("outermost",
    through `jax.jit` wrappers: `custom_jvp_call`, ...)."""

    op: ClassVar[str] = "trace"
    function: str
    args_skeleton: Any
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class CountTraces:
    """Call `function` over a sequence of calls (after a warm-up); answers how often it was traced, and the values."""

    op: ClassVar[str] = "count_traces"
    function: str
    calls_skeleton: Any  # {"warmup": [(args, kwargs)...], "calls": [...]}
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    count_all: bool = False


@dataclasses.dataclass(frozen=True)
class Export:
    """Lower `function` with jax.export (non-static arguments abstract); answers the serialized program, and
    the primitives of the jaxpr it traced ("primitives": a claim, read only for which loop construct)."""

    op: ClassVar[str] = "export"
    function: str
    args_skeleton: Any
    static_argnums: tuple[int, ...] = ()
    static_argnames: tuple[str, ...] = ()
    # Serialize the program's VJP too (jax.export's vjp_order=1), so the runner can differentiate the program
    # the student's function lowered to, with whatever derivative rules (custom_jvp) it carries.
    with_gradient: bool = False
    # Positional arguments traced as placed by rows over "the mesh" (as Call's), so the program says so.
    rows_sharded: tuple[int, ...] = ()


Request = Union[Load, CompiledPrograms, Describe, Call, Trace, CountTraces, Export]
_BY_OP: dict[str, Any] = {cls.op: cls for cls in (Load, CompiledPrograms, Describe, Call, Trace, CountTraces, Export)}


def header(request: Request) -> dict:
    """The JSON header that carries `request` over the pipe."""
    fields = {f.name: getattr(request, f.name) for f in dataclasses.fields(request)}
    return {"op": request.op, **{k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()}}


def parse(raw: object) -> Request:
    """The request a header describes; RequestError for an unknown op or field."""
    if not isinstance(raw, dict):
        raise RequestError(f"a request header must be a JSON object, not {type(raw).__name__}")
    cls = _BY_OP.get(raw.get("op"))  # type: ignore[arg-type]
    if cls is None:
        raise RequestError(f"unknown op {raw.get('op')!r}; expected one of {sorted(_BY_OP)}")
    known = {f.name: f for f in dataclasses.fields(cls)}
    values = {}
    for name, value in raw.items():
        if name == "op":
            continue
        if name not in known:
            raise RequestError(f"{cls.op} has no field {name!r}; its fields are {sorted(known)}")
        values[name] = tuple(value) if isinstance(value, list) and name not in ("args_skeleton",
                                                                               "calls_skeleton") else value
    try:
        return cls(**values)
    except TypeError as error:
        raise RequestError(f"{cls.op}: {error}") from None
