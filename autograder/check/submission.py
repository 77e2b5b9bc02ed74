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
from typing import Any, Callable, Protocol, Sequence

import numpy as np

from autograder.catalog import messages
from autograder.catalog.message_ref import joined
from autograder.check import jax_api_versions
from autograder.check.calls_shown import describe_call, student_function
from autograder.check.exported_program import Placement, ProgramFacts, ProgramRefused, ProgramRunFailed, Programs
from autograder.check.failure import CheckFailed, Failure, FailureKind
from autograder.check.jax_error_hints import hint_for
from autograder.check.typed_key import TypedKey
from autograder.protocol import requests, wire_format
from autograder.protocol.errors import ChildError, ErrorKind, KitFault, TransportFailure


class StudentCodeError(CheckFailed):
    """Student code failed or misbehaved; its failure (kind STUDENT_CODE) is the feedback.

    An AssertionError so pytest reports the check as failed, not errored.
    `error` is what the student's side reported (protocol.errors.ChildError:
    its kind, and for an exception its type, mro, message and where), for
    checks that expect an exception; None when nothing was reported.
    """

    def __init__(self, feedback: str | Failure, error_type: str | None = None, error: ChildError | None = None):
        failure = feedback if isinstance(feedback, Failure) else Failure(feedback, FailureKind.STUDENT_CODE)
        super().__init__(failure)
        self.error_type = error_type
        self.error = error

    def with_failure(self, failure: Failure) -> StudentCodeError:
        return StudentCodeError(failure, self.error_type, self.error)

    @property
    def not_implemented(self) -> bool:
        """The function is still the released stub (not a NotImplementedError the student raised)."""
        return self.error is not None and self.error.is_not_implemented


class Transport(Protocol):
    call_seconds: float
    submission_seconds: float

    def request(self, request: requests.Request, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]: ...


@dataclasses.dataclass(frozen=True)
class TraceReport:
    traces: int
    per_call: tuple[int, ...]
    explanations: tuple[str, ...]
    outputs: tuple[Any, ...] = ()  # what each counted call returned, in order


_MAX_CLAIMED = 256  # primitive names an export's answer may claim


@dataclasses.dataclass(frozen=True)
class _Exported:
    """A program the student's process exported: loaded where programs run, its bytes, and the primitives
    the student's process says its jaxpr held (a claim: only which loop construct is read from it)."""

    program: Any
    data: bytes
    claimed_primitives: frozenset[str]


def _claimed_names(claimed: object, most: int) -> frozenset[str]:
    """The names a child's answer lists (a claim), at most `most` of them, each cut at 64 characters."""
    if not isinstance(claimed, list):
        return frozenset()
    return frozenset(str(name)[:64] for name in claimed[:most] if isinstance(name, str))


class Submission:
    """What a test may ask of a submission."""

    # Whether a wrong value may be asked for again in 64 bits (check/rounding_relation.py). The student
    # package's recording answers a check's reruns from its first run, so it never asks (the replay does).
    answers_in_64_bits = True

    def __init__(self, transport: Transport, notes: Sequence[str] = (), programs: Programs | None = None,
                 devices: int | None = None):
        """`programs` loads and runs the programs the student's functions export: `autograder grade`'s
        clean-room runner (sandbox.program_runner); by default this process (a student's own checks).
        `devices`: how many CPU devices the grader gave the student's process and the runner (grading.toml
        [devices]), the count a check expects work to be spread over; the grader's own number, never
        one the student's process reports. By default this process's own count (a student's own checks,
        where the student's process is this one)."""
        self._transport = transport
        self.devices = devices if devices is not None else _this_process_devices()
        self.notes = list(notes)
        self._programs = programs
        # One export per function and abstract signature: a check that traces a function and then
        # runs it under jit (expect_jittable) lowers it once. Keyed by what the child is sent.
        self._exports: dict[str, _Exported] = {}

    # --- questions ---------------------------------------------------------

    def describe(self, function: str) -> dict:
        """Whether `function` exists, is callable and is a `jax.jit` object."""
        return self._ask(requests.Describe(function), [], function)

    def is_jitted(self, function: str) -> bool:
        self.require(function)
        return bool(self.describe(function).get("jitted"))

    def require(self, function: str) -> None:
        """Fail with the right feedback if `function` (the student's, in a harness's call) is missing or not
        callable."""
        function = student_function(function)
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
        rows_sharded: Sequence[int] = (),
        wider_floats: bool = False,
    ) -> Any:
        """Call `function` through a transformation.

        mode: "plain", "jit" (with the static arguments given), "vmap" over the
        leading axis (or over `in_axes`, per positional argument as in
        `jax.vmap`; None passes an argument, e.g. a Python int, unmapped), or
        "grad_sum" (gradient of the sum of the output with respect to
        `argnums`). `rows_sharded`: positional arguments the student's process places by rows over the
        mesh of all its devices (`jax.make_mesh((d,), ("data",))`, `P("data")`) before the call.
        `wider_floats`: the child runs it in JAX's x64 mode with float32 arguments widened to float64
        (check/rounding_relation.py); a "jit" call then runs as a plain one.
        Returns NumPy arrays in the output's structure.
        """
        kwargs = dict(kwargs or {})
        skeleton, arrays = _encode({"args": tuple(args), "kwargs": kwargs})
        request = requests.Call(
            function, skeleton, mode=mode, static_argnums=tuple(static_argnums), static_argnames=tuple(static_argnames),
            argnums=argnums if isinstance(argnums, int) else tuple(argnums),
            in_axes=tuple(in_axes) if isinstance(in_axes, (list, tuple)) else in_axes, key_reuse_check=key_reuse_check,
            rows_sharded=tuple(rows_sharded), wider_floats=wider_floats)
        call = describe_call(function, args, kwargs)
        if mode != "plain":
            call = f"{mode}({call})"  # as expect_output names it: feedback says which transformation ran
        if mode == "jit" and wider_floats:
            request = dataclasses.replace(request, mode="plain")
        elif mode == "jit":
            # Run where student code cannot reach: the child only lowers the function; the runner runs it.
            exported = self._exported(function, args, kwargs, static_argnums, static_argnames, call,
                                      rows_sharded=rows_sharded)
            return self._run_exported(exported, function, args, kwargs, static_argnums, static_argnames, call)
        answer, out_arrays = self._send(request, arrays, call)
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
    ) -> ProgramFacts:
        """Trace `function` with every non-static argument abstract (jittability); its structure.

        The facts come from the exported program's parsed operations, read by
        the clean-room runner (check.exported_program): the JAX constructs it
        lowers to (`cond`, a loop) and its number of operations. StableHLO has one
        loop operation for `lax.while_loop`, `fori_loop` and `scan`; which of
        them the student wrote is taken from the jaxpr their process
        reports, and only where the program does hold a loop.
        """
        from autograder.check import exported_program

        kwargs = dict(kwargs or {})
        call = describe_call(function, args, kwargs)
        exported = self._exported(function, args, kwargs, static_argnums, static_argnames, call)
        facts = exported.program.facts
        if not facts.primitives & exported_program.LOOP_CONSTRUCTS:
            return facts
        loops = (exported.claimed_primitives & exported_program.LOOP_CONSTRUCTS) or exported_program.LOOP_CONSTRUCTS
        return dataclasses.replace(facts, primitives=(facts.primitives - exported_program.LOOP_CONSTRUCTS) | loops)

    def placed_run(
        self,
        function: str,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None = None,
        *,
        rows_sharded: Sequence[int] = (),
    ) -> tuple[ProgramFacts, Any, list[Placement]]:
        """`jax.jit(function)` exported by the student's process and run in the clean room: facts, value, placements.

        The runner runs the program on as many devices as it was exported for and reports where each
        output leaf lives (`Placement`: which devices hold which rows), read from the arrays it computed,
        so a sharding is decided from what the program does, never from what the student's process says.
        `rows_sharded`: positional arguments traced as placed by rows over the mesh (see `call_with`).
        Returns `(facts, outputs as NumPy arrays, one Placement per output leaf in tree order)`.
        """
        kwargs = dict(kwargs or {})
        call = f"jit({describe_call(function, args, kwargs)})"
        exported = self._exported(function, args, kwargs, (), (), call, rows_sharded=rows_sharded)
        program = exported.program
        skeleton, arrays = _encode({"args": list(args), "kwargs": kwargs})
        value, placements = _ran(lambda: self._program_runner().run_placed(
            program, exported.data, skeleton, arrays, self._transport.call_seconds), function, call)
        return program.facts, value, placements

    def placed_call(self, function: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None, *,
                    rows_sharded: Sequence[int] = ()) -> tuple[Any, list[Placement]]:
        """`function(*args, **kwargs)` called as the student calls it (eagerly, no `jax.jit` around it): its value,
        and where each output leaf lives.

        The kit reads each placement from the array the call returned, in the process that ran it
        (child/executor.py), and it crosses the pipe as typed data (protocol.placements): a leaf that is
        not a `jax.Array` (NumPy, a Python number) comes back on the host. `rows_sharded`: positional
        arguments placed by rows over the mesh before the call (see `call_with`).
        Returns `(outputs as NumPy arrays, one Placement per output leaf in tree order)`.
        """
        kwargs = dict(kwargs or {})
        skeleton, arrays = _encode({"args": tuple(args), "kwargs": kwargs})
        request = requests.Call(function, skeleton, rows_sharded=tuple(rows_sharded), placements=True)
        call = describe_call(function, args, kwargs)
        answer, out_arrays = self._send(request, arrays, call)
        try:
            value = wire_format.decode(answer.get("value_skeleton"), out_arrays, make_array=_same, make_key=_key_data)
            raw = answer.get("placements")
            placements = [Placement.from_wire(leaf) for leaf in (raw if isinstance(raw, list) else [None])]
        except (wire_format.WireFormatError, ValueError) as error:
            raise StudentCodeError(messages.text("call.bad_output", call=call, detail=error)) from None
        return value, placements

    def program_gradient(
        self,
        function: str,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None = None,
        *,
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
    ) -> tuple[ProgramFacts, Any]:
        """The facts of `function`'s traced program, and `jax.grad` of its output's sum, computed from that program.

        The student's process lowers the function with `jax.export` together
        with its derivative program (whatever rules it carries: a
        `jax.custom_jvp`'s, or JAX's own); the gradient with respect to the
        first traced argument is computed where the programs run (the
        clean-room runner), never by the student's process. Returns
        `(facts, gradient)`, the gradient as a NumPy array.
        """
        kwargs = dict(kwargs or {})
        call = describe_call(function, args, kwargs)
        exported = self._exported(function, args, kwargs, static_argnums, static_argnames, call, with_gradient=True)
        gradient = self._run_exported(exported, function, args, kwargs, static_argnums, static_argnames,
                                      f"jax.grad(jit({call}))", gradient=True)
        return exported.program.facts, gradient

    def outermost_primitives(
        self,
        function: str,
        args: Sequence[Any],
        kwargs: dict[str, Any] | None = None,
        *,
        static_argnums: Sequence[int] = (),
        static_argnames: Sequence[str] = (),
    ) -> frozenset[str]:
        """What the student's process reports `function` to be at the top of its jaxpr (`custom_jvp_call`, ...).

        StableHLO keeps no trace of constructs such as `jax.custom_jvp` (their
        programs are inlined), so which one the student wrote can only be
        reported by their process, like which loop construct `trace` names. A
        claim, not a fact: decide a property on it only together with what the
        exported program shows (for a custom rule: the gradient computed from
        the program, `program_gradient`).
        """
        kwargs = dict(kwargs or {})
        skeleton, arrays = _encode(_without_values(args, kwargs, static_argnums, static_argnames))
        request = requests.Trace(function, skeleton, tuple(static_argnums), tuple(static_argnames))
        static = _static_phrase(args, static_argnums, static_argnames)
        answer = self._ask(request, arrays, function, describe_call(function, args, kwargs),
                           raised_template="check.not_jittable", static=static)
        return _claimed_names(answer.get("outermost"), 64)

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
        plan = {"warmup": [(tuple(a), dict(k)) for a, k in warmup], "calls": [(tuple(a), dict(k)) for a, k in calls]}
        skeleton, arrays = _encode(plan)
        request = requests.CountTraces(function, skeleton, tuple(static_argnums), tuple(static_argnames), count_all)
        call = messages.text("check.call_sequence", function=student_function(function))
        answer, out_arrays = self._send(request, arrays, call)
        try:
            outputs = wire_format.decode(answer.get("value_skeleton"), out_arrays, make_array=_same, make_key=_key_data)
        except wire_format.WireFormatError as error:
            raise StudentCodeError(messages.text("call.bad_output", call=call, detail=error)) from None
        if not isinstance(outputs, list) or len(outputs) != len(calls):
            raise StudentCodeError(messages.text("call.bad_output", call=call,
                                                 detail=messages.text("check.one_output_per_call")))
        return TraceReport(int(answer.get("traces", -1)), tuple(answer.get("per_call", ())),
                           tuple(str(e) for e in answer.get("explanations", ())), tuple(outputs))

    # --- plumbing ----------------------------------------------------------

    def _exported(self, function: str, args: Sequence[Any], kwargs: dict[str, Any], static_argnums: Sequence[int],
                  static_argnames: Sequence[str], call: str, with_gradient: bool = False,
                  rows_sharded: Sequence[int] = ()) -> _Exported:
        """The student's function lowered by jax.export in their process, loaded by the runner: (program, bytes)."""

        skeleton, arrays = _encode(_without_values(args, kwargs, static_argnums, static_argnames))
        request = requests.Export(function, skeleton, tuple(static_argnums), tuple(static_argnames), with_gradient,
                                  tuple(rows_sharded))
        digests = [(a.shape, a.dtype.str, hashlib.sha256(a.tobytes()).hexdigest()) for a in arrays]
        key = json.dumps([requests.header(request), digests], sort_keys=True, default=str)
        if key not in self._exports:
            self._exports[key] = self._export(request, arrays, function, args, static_argnums, static_argnames, call)
        return self._exports[key]

    def _export(self, request: requests.Export, arrays: list, function: str, args: Sequence[Any],
                static_argnums: Sequence[int], static_argnames: Sequence[str], call: str) -> _Exported:
        static = _static_phrase(args, static_argnums, static_argnames)
        answer, out_arrays = self._send(request, arrays, call, raised_template="check.not_jittable", static=static)
        claimed_primitives = _claimed_names(answer.get("primitives"), _MAX_CLAIMED)
        if len(out_arrays) != 1 or out_arrays[0].dtype != np.uint8 or out_arrays[0].ndim != 1:
            raise StudentCodeError(messages.text("check.program_refused", call=f"jit({call})",
                                                 reason=messages.text("program.refused.unreadable",
                                                                      detail="no program")))
        data = out_arrays[0].tobytes()
        try:
            return _Exported(self._program_runner().load(data, self._transport.call_seconds), data, claimed_primitives)
        except ProgramRefused as refused:
            reason = messages.text(f"program.refused.{refused.reason}", detail=refused.detail)
            raise StudentCodeError(messages.text("check.program_refused", call=f"jit({call})", reason=reason)) from None
        except ProgramRunFailed as failed:
            raise StudentCodeError(_run_failure_feedback(failed, function, f"jit({call})")) from None

    def _run_exported(self, exported: _Exported, function: str, args: Sequence[Any],
                      kwargs: dict[str, Any], static_argnums: Sequence[int], static_argnames: Sequence[str],
                      call: str, gradient: bool = False) -> Any:
        """The exported program run on the traced arguments (the static ones were fixed at export), or its gradient."""
        program, data = exported.program, exported.data
        traced = {"args": [a for i, a in enumerate(args) if i not in set(static_argnums)],
                  "kwargs": {k: v for k, v in kwargs.items() if k not in set(static_argnames)}}
        skeleton, arrays = _encode(traced)
        return _ran(lambda: self._program_runner().run(program, data, skeleton, arrays, self._transport.call_seconds,
                                                       gradient=gradient), function, call)

    def _program_runner(self) -> Programs:
        if self._programs is None:
            from autograder.check.exported_program import InProcessPrograms

            self._programs = InProcessPrograms()
        return self._programs

    def _ask(self, request: requests.Request, arrays: list, function: str, call: str | None = None,
             **template) -> dict:
        answer, _ = self._send(request, arrays, call or function, **template)
        return answer

    def _send(self, request: requests.Request, arrays: list, call: str, raised_template: str = "call.raised",
              **fields) -> tuple[dict, list]:
        try:
            answer, out_arrays = self._transport.request(request, arrays)
        except TransportFailure as failure:
            raise StudentCodeError(_transport_feedback(failure, call, self._transport)) from None
        if answer.get("ok") is True:
            return answer, out_arrays
        error = ChildError.from_wire(answer.get("error"))
        if error.kind is ErrorKind.KIT:  # not the student's: the check's internal error, without a hint
            raise KitFault(error.message)
        if error.kind is ErrorKind.TIMEOUT:
            timeout = TransportFailure(ErrorKind.TIMEOUT, error.message)
            raise StudentCodeError(_transport_feedback(timeout, call, self._transport))
        said = _error_failure(error, call, student_function(getattr(request, "function", "")), raised_template, fields)
        raise StudentCodeError(said, error.type or None, error)


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


def _this_process_devices() -> int:
    import jax

    return jax.device_count()


def _static_phrase(args: Sequence[Any], static_argnums: Sequence[int], static_argnames: Sequence[str]) -> str:
    if not static_argnums and not static_argnames:
        return messages.text("check.static_none")
    names = ([messages.text("check.static_position", index=i) for i in static_argnums]
             + [f"`{n}`" for n in static_argnames])
    return messages.text("check.static_some", names=joined(", ", *names))


def _missing_feedback(function: str, not_implemented_cells: Any, load_problems: Any = (), similar: Any = ()) -> str:
    if not_implemented_cells:
        return messages.text("call.missing_not_implemented", function=function)
    feedback = messages.text("call.missing_function", function=function)
    if isinstance(similar, (list, tuple)) and similar and isinstance(similar[0], str):
        feedback = joined(" ", feedback, messages.text("call.did_you_mean", function=function,
                                                       similar=similar[0][:100]))
    # A note of the child's is a sentence with its reference (protocol.sentences): kept, not made text again.
    problems = [p if isinstance(p, str) else str(p) for p in (load_problems or [])][:3]
    return joined("\n", feedback, *problems)


def _error_failure(error: ChildError, call: str, function: str, raised_template: str = "call.raised",
                   fields: dict | None = None) -> Failure:
    if error.kind is ErrorKind.RAISED:
        return _raised_failure(error, call, function, raised_template, fields or {})
    explain = _FEEDBACK_BY_KIND.get(error.kind)
    if explain is None:
        detail = messages.text("call.raised", call=call, error_type="an error", error=error.message or error.kind.value)
    else:
        detail = explain(error, call, function)
    stub = error.kind is ErrorKind.MISSING and bool(error.not_implemented_cells)
    return Failure(detail, FailureKind.NOT_IMPLEMENTED if stub else FailureKind.STUDENT_CODE, call=call,
                   hints=_load_hints(error) if error.kind is ErrorKind.MISSING else ())


def _load_hints(error: ChildError) -> tuple[str, ...]:
    """For a function left undefined by a cell that raised: the hint of a JAX API that the running JAX lacks
    (`from jax.sharding import PositionalSharding` of an older tutorial), once each."""
    problems = [str(p) for p in (error.load_problems or [])][:3]
    return tuple(dict.fromkeys(h for h in (jax_api_versions.hint(p) for p in problems) if h))


# What a student is told for each kind of failure (RAISED, with its hints, is _raised_failure).
_FEEDBACK_BY_KIND: dict[ErrorKind, Callable[[ChildError, str, str], str]] = {
    ErrorKind.MISSING: lambda error, call, function: _missing_feedback(
        function, error.not_implemented_cells, error.load_problems, error.similar),
    ErrorKind.NOT_CALLABLE: lambda error, call, function: messages.text(
        "call.not_callable", function=function, type_name=error.type_name),
    ErrorKind.EXITED: lambda error, call, function: messages.text("call.exited", call=call, detail=error.message),
    ErrorKind.TAMPERED: lambda error, call, function: messages.text(
        "call.tampered", call=call, changes="; ".join(error.changes)),
    ErrorKind.HOST_CALLBACK: lambda error, call, function: messages.text(
        "check.host_callback", function=function, primitives="a host callback"),
    ErrorKind.BAD_OUTPUT: lambda error, call, function: messages.text("call.bad_output", call=call,
                                                                      detail=error.message),
    ErrorKind.BUSY: lambda error, call, function: messages.text("call.busy", call=call),
}


def _raised_failure(error: ChildError, call: str, function: str, raised_template: str, fields: dict) -> Failure:
    if error.is_not_implemented:
        return Failure(messages.text("call.not_implemented", function=function), FailureKind.NOT_IMPLEMENTED,
                       call=call)
    first = error.message.splitlines()[0] if error.message else ""
    detail = messages.text(raised_template, call=call, error_type=error.type, error=first, **fields)
    location = _location(error.where)
    if location:
        detail = joined(" ", detail, location)
    hint = hint_for(list(error.mro or (error.type,)), error.message)
    return Failure(detail, FailureKind.STUDENT_CODE, call=call, hints=(hint,) if hint else ())


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


def _ran(run: Callable[[], Any], function: str, call: str) -> Any:
    """`run()` of a student's exported program; its failure as the StudentCodeError a check reports."""
    try:
        return run()
    except ProgramRunFailed as failed:
        raise StudentCodeError(_run_failure_feedback(failed, function, call), failed.error_type or None) from None
    except Exception as error:  # in-process: the program came from the student; whatever it does is theirs
        feedback = messages.text("call.raised", call=call, error_type=type(error).__name__,
                                 error=str(error).splitlines()[0][:300] if str(error) else "")
        raise StudentCodeError(feedback, type(error).__name__) from None


def _run_failure_feedback(failed: ProgramRunFailed, function: str, call: str) -> str:
    """What the student is told when the runner could not load or run their function's traced program."""
    if failed.kind == "raised":
        return messages.text("call.raised", call=call, error_type=failed.error_type or "an error",
                             error=failed.detail)
    return messages.text(f"program.{failed.kind}", function=student_function(function), call=call,
                         seconds=failed.seconds, detail=failed.detail)


def _transport_feedback(failure: TransportFailure, call: str, transport: Transport) -> str:
    if failure.kind is ErrorKind.TIMEOUT:
        # "stalled": the wall-clock backstop ran out while it slept or waited (sandbox.parent.STALLED)
        template = "call.stalled" if failure.detail == "stalled" else "call.timeout"
        return messages.text(template, call=call, seconds=transport.call_seconds)
    if failure.kind is ErrorKind.BUDGET:
        return messages.text("call.budget_exhausted", seconds=transport.submission_seconds)
    if failure.kind is ErrorKind.BUSY:  # the grader's problem, not the student's (sandbox.parent)
        return messages.text("call.busy", call=call)
    if failure.kind is ErrorKind.LOAD_FAILED:
        return failure.detail
    return messages.text("call.exited", call=call, detail=failure.detail or failure.kind.value)
