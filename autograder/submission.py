"""The `submission` fixture: the only way a test reaches student code.

Tests ask for values, jaxpr facts and trace counts by function name; a
transport carries each request to an Executor (in this process, or in the
sandbox child) and brings back plain data. Anything that goes wrong on the
student's side arrives here as a `StudentCodeError` whose message is the
feedback: what happened, where, and the JAX idea that fixes it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import operator
from typing import Any, Protocol, Sequence

import numpy as np

from autograder import messages, wire_format
from autograder.jaxcheck.hints import hint_for


class StudentCodeError(AssertionError):
    """Student code failed or misbehaved; the message is the feedback.

    An AssertionError so pytest reports the check as failed, not errored.
    `error` is the data-only description of the student's exception, if one
    was raised (type, mro, message, where; see executor.describe_exception),
    for checks that expect an exception.
    """

    def __init__(self, feedback: str, error_type: str | None = None, error: dict | None = None):
        super().__init__(feedback)
        self.error_type = error_type
        self.error = dict(error or {})


class TransportFailure(Exception):
    """The student's process could not answer: kind is timeout, exited or budget."""

    def __init__(self, kind: str, detail: str = ""):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


class Transport(Protocol):
    call_seconds: float
    submission_seconds: float

    def request(self, header: dict, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]: ...


@dataclasses.dataclass(frozen=True)
class JaxprFacts:
    primitives: frozenset[str]
    equation_count: int
    text: str


@dataclasses.dataclass(frozen=True)
class TraceReport:
    traces: int
    per_call: tuple[int, ...]
    explanations: tuple[str, ...]
    outputs: tuple[Any, ...] = ()  # what each counted call returned, in order


class Submission:
    """What a test may ask of a submission."""

    def __init__(self, transport: Transport, notes: Sequence[str] = ()):
        self._transport = transport
        self.notes = list(notes)
        # One export per function and abstract signature: a check that traces a function and then
        # runs it under jit (expect_jittable) lowers it once. Keyed by what the child is sent.
        self._exports: dict[str, Any] = {}

    # --- questions ---------------------------------------------------------

    def describe(self, function: str) -> dict:
        """Whether `function` exists, is callable and is a `jax.jit` object."""
        return self._ask({"op": "describe", "function": function}, [], function)

    def is_jitted(self, function: str) -> bool:
        self.require(function)
        return bool(self.describe(function).get("jitted"))

    def require(self, function: str) -> None:
        """Fail with the right feedback if `function` is missing or not callable."""
        facts = self.describe(function)
        if not facts.get("exists"):
            raise StudentCodeError(_missing_feedback(function, facts.get("not_implemented_cells"),
                                                     facts.get("load_problems"),
                                                     facts.get("similar")))
        if not facts.get("callable"):
            raise StudentCodeError(messages.text("call.not_callable", function=function,
                                                 type_name=facts.get("type_name")))

    def call(self, function: str, *args: Any, **kwargs: Any) -> Any:
        """`function(*args, **kwargs)` run as the student wrote it."""
        return self.call_with(function, args, kwargs)

    def call_with(
        self,
        function: str,
        args: Sequence[Any] = (),
        kwargs: dict[str, Any] | None = None,
        *,
        mode: str = "plain",
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
        argnums: int | Sequence[int] = 0,
        in_axes: int | None | Sequence[int | None] = 0,
        key_reuse_check: bool = False,
    ) -> Any:
        """Call `function` through a transformation.

        mode: "plain", "jit" (with the static arguments given), "vmap" over the
        leading axis (or over `in_axes`, per positional argument as in
        `jax.vmap`; None passes an argument, e.g. a Python int, unmapped), or
        "grad_sum" (gradient of the sum of the output with respect to
        `argnums`). Returns NumPy arrays in the output's structure.
        """
        kwargs = dict(kwargs or {})
        header = {
            "op": "call", "function": function, "mode": mode,
            "static_argnums": list(static_argnums), "static_argnames": list(static_argnames),
            "argnums": list(argnums) if isinstance(argnums, (list, tuple)) else argnums,
            "in_axes": list(in_axes) if isinstance(in_axes, (list, tuple)) else in_axes,
            "key_reuse_check": key_reuse_check,
        }
        header["args_skeleton"], arrays = _encode({"args": tuple(args), "kwargs": kwargs})
        call = describe_call(function, args, kwargs)
        if mode != "plain":
            call = f"{mode}({call})"  # as expect_output names it: feedback says which transformation ran
        if mode == "jit":
            # Run where student code cannot reach: the child only lowers the function.
            exported = self._exported(function, args, kwargs, static_argnums, static_argnames, call)
            return self._run_exported(exported, args, kwargs, static_argnums, static_argnames, call)
        answer, out_arrays = self._send(header, arrays, call)
        try:
            return wire_format.decode(answer.get("value_skeleton"), out_arrays, make_array=_same, make_key=_key_data)
        except wire_format.WireFormatError as error:
            raise StudentCodeError(messages.text("call.bad_output", call=call, detail=error)) from None

    def trace(
        self,
        function: str,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None = None,
        *,
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
    ) -> JaxprFacts:
        """Trace `function` with every non-static argument abstract (jittability); its structure.

        The facts come from the exported program, read in this process
        (jaxcheck.exported_program): the JAX constructs it lowers to
        (`cond`, a loop) and its number of operations. StableHLO has one
        loop operation for `lax.while_loop`, `fori_loop` and `scan`; which of
        them the student wrote is taken from the jaxpr their process
        reports, and only where the program does hold a loop.
        """
        from autograder.jaxcheck import exported_program

        kwargs = dict(kwargs or {})
        call = describe_call(function, args, kwargs)
        facts = exported_program.facts(self._exported(function, args, kwargs, static_argnums, static_argnames, call))
        if not facts.primitives & exported_program.LOOP_CONSTRUCTS:
            return facts
        header = {"op": "trace", "function": function,
                  "static_argnums": list(static_argnums), "static_argnames": list(static_argnames)}
        header["args_skeleton"], arrays = _encode(_without_values(args, kwargs, static_argnums, static_argnames))
        static = _static_phrase(args, static_argnums, static_argnames)
        answer = self._ask(header, arrays, function, call, raised_template="check.not_jittable", static=static)
        claimed = frozenset(str(p) for p in answer.get("primitives", ()) if isinstance(p, str))
        loops = (claimed & exported_program.LOOP_CONSTRUCTS) or exported_program.LOOP_CONSTRUCTS
        return dataclasses.replace(facts, primitives=(facts.primitives - exported_program.LOOP_CONSTRUCTS) | loops)

    def count_traces(
        self,
        function: str,
        calls: Sequence[tuple[Sequence[Any], dict[str, Any]]],
        *,
        warmup: Sequence[tuple[Sequence[Any], dict[str, Any]]] = (),
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
        count_all: bool = False,
    ) -> TraceReport:
        """How many times `function` is traced over `calls` (after `warmup`).

        A student's own jit object is counted as it is; a plain function is
        wrapped in jax.jit with the static arguments given.
        """
        header = {"op": "count_traces", "function": function, "count_all": count_all,
                  "static_argnums": list(static_argnums), "static_argnames": list(static_argnames)}
        plan = {"warmup": [(tuple(a), dict(k)) for a, k in warmup], "calls": [(tuple(a), dict(k)) for a, k in calls]}
        header["calls_skeleton"], arrays = _encode(plan)
        call = f"{function} over its call sequence"
        answer, out_arrays = self._send(header, arrays, call)
        try:
            outputs = wire_format.decode(answer.get("value_skeleton"), out_arrays, make_array=_same, make_key=_key_data)
        except wire_format.WireFormatError as error:
            raise StudentCodeError(messages.text("call.bad_output", call=call, detail=error)) from None
        if not isinstance(outputs, list) or len(outputs) != len(calls):
            raise StudentCodeError(messages.text("call.bad_output", call=call, detail="one output per call expected"))
        return TraceReport(int(answer.get("traces", -1)), tuple(answer.get("per_call", ())),
                           tuple(str(e) for e in answer.get("explanations", ())), tuple(outputs))

    # --- plumbing ----------------------------------------------------------

    def _exported(self, function: str, args: Sequence[Any], kwargs: dict[str, Any], static_argnums: Sequence[int],
                  static_argnames: Sequence[str], call: str):
        """The student's function lowered by jax.export in their process, loaded and checked here."""

        header = {"op": "export", "function": function,
                  "static_argnums": list(static_argnums), "static_argnames": list(static_argnames)}
        header["args_skeleton"], arrays = _encode(_without_values(args, kwargs, static_argnums, static_argnames))
        key = json.dumps([header, [(a.shape, a.dtype.str, hashlib.sha256(a.tobytes()).hexdigest()) for a in arrays]],
                         sort_keys=True, default=str)
        if key not in self._exports:
            self._exports[key] = self._export(header, arrays, args, static_argnums, static_argnames, call)
        return self._exports[key]

    def _export(self, header: dict, arrays: list, args: Sequence[Any], static_argnums: Sequence[int],
                static_argnames: Sequence[str], call: str):
        from autograder.jaxcheck import exported_program

        static = _static_phrase(args, static_argnums, static_argnames)
        _, out_arrays = self._send(header, arrays, call, raised_template="check.not_jittable", static=static)
        if len(out_arrays) != 1 or out_arrays[0].dtype != np.uint8 or out_arrays[0].ndim != 1:
            raise StudentCodeError(messages.text("check.program_refused", call=f"jit({call})",
                                                 reason="the grading process sent no compiled program"))
        try:
            return exported_program.load(out_arrays[0].tobytes())
        except exported_program.ProgramRefused as refused:
            raise StudentCodeError(messages.text("check.program_refused", call=f"jit({call})",
                                                 reason=refused)) from None

    def _run_exported(self, exported, args: Sequence[Any], kwargs: dict[str, Any], static_argnums: Sequence[int],
                      static_argnames: Sequence[str], call: str) -> Any:
        from autograder.jaxcheck import exported_program

        try:
            return exported_program.run(exported, args, kwargs, static_argnums, static_argnames)
        except Exception as error:  # the program came from the child: whatever it does is the student's
            feedback = messages.text("call.raised", call=call, error_type=type(error).__name__,
                                     error=str(error).splitlines()[0][:300] if str(error) else "")
            raise StudentCodeError(feedback, type(error).__name__) from None

    def _ask(self, header: dict, arrays: list, function: str, call: str | None = None, **template) -> dict:
        answer, _ = self._send(header, arrays, call or function, **template)
        return answer

    def _send(self, header: dict, arrays: list, call: str, raised_template: str = "call.raised",
              **fields) -> tuple[dict, list]:
        try:
            answer, out_arrays = self._transport.request(header, arrays)
        except TransportFailure as failure:
            raise StudentCodeError(_transport_feedback(failure, call, self._transport)) from None
        if answer.get("ok") is True:
            return answer, out_arrays
        raw_error = answer.get("error")
        error: dict = raw_error if isinstance(raw_error, dict) else {}
        if error.get("kind") == "timeout":
            raise StudentCodeError(_transport_feedback(TransportFailure("timeout"), call, self._transport))
        feedback = _error_feedback(error, call, header.get("function", ""), raised_template, fields)
        raise StudentCodeError(feedback, error.get("type"), error)


def _without_values(args: Sequence[Any], kwargs: dict[str, Any], static_argnums: Sequence[int],
                    static_argnames: Sequence[str]) -> dict:
    """The arguments for lowering a function: static ones as they are, every traced one as zeros of its type.

    The child only needs shapes and dtypes to lower the function. It must not
    see the values the parent will run the program on, or it could compute
    the answers in Python and export a program that returns them as constants.
    """
    static = set(static_argnums)
    return {"args": tuple(arg if i in static else _zeros(arg) for i, arg in enumerate(args)),
            "kwargs": {k: v if k in static_argnames else _zeros(v) for k, v in kwargs.items()}}


def _zeros(value: Any) -> Any:
    if isinstance(value, TypedKey):
        return TypedKey(np.zeros_like(value.data), value.impl)
    if isinstance(value, np.ndarray):
        return np.zeros_like(value)
    if isinstance(value, np.generic):
        return type(value)(0)
    if isinstance(value, (bool, int, float, complex)):
        return type(value)(0)
    if isinstance(value, tuple):
        return tuple(_zeros(v) for v in value)
    if isinstance(value, list):
        return [_zeros(v) for v in value]
    if isinstance(value, dict):
        return {k: _zeros(v) for k, v in value.items()}
    return value


def _same(array: np.ndarray) -> np.ndarray:
    return array


def _key_data(data: np.ndarray, impl: str) -> np.ndarray:
    """Typed keys come back to the parent as their key data."""
    return data


def _encode(value: Any) -> tuple[Any, list[np.ndarray]]:
    return wire_format.encode(value, _parent_leaf)


def _parent_leaf(leaf: Any):
    if isinstance(leaf, TypedKey):
        return leaf.data, leaf.impl
    if type(leaf) is np.ndarray:
        return leaf
    if isinstance(leaf, np.generic):
        return np.asarray(leaf)
    return None


@dataclasses.dataclass(frozen=True)
class TypedKey:
    """A typed PRNG key to pass to student code (`jax.random.key(seed)` there).

    `data` is the key data, shape (2,) for one threefry key; a leading batch
    axis, shape (n, 2), passes an array of n keys (e.g. for mode="vmap").
    """

    data: np.ndarray
    impl: str = "threefry2x32"

    @classmethod
    def from_seed(cls, seed: int) -> "TypedKey":
        """The key data of `jax.random.key(seed)` for the default threefry impl.

        As JAX computes it in its default configuration (`jax_enable_x64`
        off): the seed is taken as a 32-bit integer, so the data is
        `[0, seed mod 2**32]`. Seeds outside int64 raise OverflowError, as in JAX.
        """
        seed = operator.index(seed)
        if not -(1 << 63) <= seed < (1 << 63):
            raise OverflowError(f"seed {seed} does not fit in int64")
        return cls(np.array([0, seed & 0xFFFFFFFF], dtype=np.uint32))

    @classmethod
    def from_seeds(cls, seeds: Sequence[int]) -> "TypedKey":
        """A batch of keys, `jax.random.key(s)` for each seed, as one key array of shape (len(seeds),)."""
        return cls(np.stack([cls.from_seed(s).data for s in seeds]))


def describe_call(function: str, args: Sequence[Any], kwargs: dict[str, Any]) -> str:
    """`name(f32[17], 3, negate=True)`: how feedback names a call."""
    parts = [_describe_value(a) for a in args] + [f"{k}={_describe_value(v)}" for k, v in kwargs.items()]
    return f"{function}({', '.join(parts)})"


def _describe_value(value: Any) -> str:
    if isinstance(value, TypedKey):
        return "key" if value.data.ndim <= 1 else f"key{list(value.data.shape[:-1])}"
    if isinstance(value, np.generic):
        return f"{value.item():.4g}" if isinstance(value, np.floating) else repr(value.item())
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return f"{value.dtype.name}({value.item()!r})"
        short = {"float32": "f32", "int32": "i32", "bool": "bool", "uint32": "u32",
                 "float64": "f64"}.get(value.dtype.name, value.dtype.name)
        return f"{short}{list(value.shape)}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_describe_value(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


def _static_phrase(args: Sequence[Any], static_argnums: Sequence[int], static_argnames: Sequence[str]) -> str:
    if not static_argnums and not static_argnames:
        return messages.text("check.static_none")
    names = [f"argument {i}" for i in static_argnums] + [f"`{n}`" for n in static_argnames]
    return messages.text("check.static_some", names=", ".join(names))


def _missing_feedback(function: str, not_implemented_cells: Any, load_problems: Any = (), similar: Any = ()) -> str:
    if not_implemented_cells:
        return messages.text("call.missing_not_implemented", function=function)
    feedback = messages.text("call.missing_function", function=function)
    if isinstance(similar, list) and similar and isinstance(similar[0], str):
        feedback += " " + messages.text("call.did_you_mean", function=function, similar=similar[0][:100])
    problems = [str(p) for p in (load_problems or [])][:3]
    return "\n".join([feedback, *problems])


def _error_feedback(error: dict, call: str, function: str, raised_template: str = "call.raised",
                    fields: dict | None = None) -> str:
    kind = error.get("kind")
    if kind == "missing":
        return _missing_feedback(function, error.get("not_implemented_cells"), error.get("load_problems"),
                                 error.get("similar"))
    if kind == "not_callable":
        return messages.text("call.not_callable", function=function, type_name=error.get("type_name"))
    if kind == "exited":
        return messages.text("call.exited", call=call, detail=error.get("message", ""))
    if kind == "tampered":
        return messages.text("call.tampered", call=call, changes="; ".join(str(c) for c in error.get("changes", [])))
    if kind == "host_callback":
        return messages.text("check.host_callback", function=function, primitives="a host callback")
    if kind == "bad_output":
        return messages.text("call.bad_output", call=call, detail=error.get("message", ""))
    if kind != "raised":
        return messages.text("call.raised", call=call, error_type="an error", error=error.get("message", kind))
    type_names = [str(n) for n in error.get("mro", [error.get("type", "")])]
    message = str(error.get("message", ""))
    if "NotImplementedError" in type_names[:1]:
        return messages.text("call.not_implemented", function=function)
    first = message.splitlines()[0] if message else ""
    feedback = messages.text(raised_template, call=call, error_type=error.get("type"), error=first, **(fields or {}))
    location = _location(error.get("where"))
    if location:
        feedback += f" {location}"
    hint = hint_for(type_names, message)
    if hint:
        feedback += "\n" + messages.text("call.hint", hint=hint)
    return feedback


def _location(where: object) -> str | None:
    """"(in `step`, line 4 of its cell)" from the child's report of where an error was raised, if it is well-formed."""
    if not isinstance(where, dict):
        return None
    function, line = where.get("function"), where.get("line")
    if not isinstance(line, int) or isinstance(line, bool) or line < 1:
        return None
    if isinstance(function, str) and function.isidentifier() and len(function) <= 80:
        return messages.text("call.location", function=function, line=line)
    return messages.text("call.location_top_level", line=line)


def _transport_feedback(failure: TransportFailure, call: str, transport: Transport) -> str:
    if failure.kind == "timeout":
        return messages.text("call.timeout", call=call, seconds=transport.call_seconds)
    if failure.kind == "budget":
        return messages.text("call.budget_exhausted", seconds=transport.submission_seconds)
    if failure.kind == "load_failed":
        return failure.detail
    return messages.text("call.exited", call=call, detail=failure.detail or failure.kind)
