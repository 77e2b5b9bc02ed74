"""Answering the grader's requests next to the student's code.

Both backends use this class: the in-process backend calls `handle`
directly, the sandbox child calls it for each message from the parent. A
request and its answer are data only (see wire_format); the answer carries
values, jaxpr facts or trace counts, never verdicts, because the verdict is
the parent's.

The requests are the dataclasses of protocol.requests; failures are
protocol.errors.ChildError, sent as data.
"""

from __future__ import annotations

import contextlib
import traceback
from typing import AbstractSet, Any, Callable

import numpy as np

from autograder.child.cell_execution import LoadReport, raised_by_stub
from autograder.child.time_limits import MachineTooBusy, TimeLimitExceeded
from autograder.protocol import requests, wire_format
from autograder.protocol.errors import ChildError, ErrorKind, KitFault

MAX_MESSAGE = 2000


class _Refusal(Exception):
    """A request that cannot be answered; carries the error to send."""

    def __init__(self, error: ChildError):
        super().__init__(error.kind.value)
        self.error = error


class Executor:
    """Runs requests against the functions in `namespace`."""

    def __init__(self, namespace: dict, load_report: LoadReport, guard: Callable[[], Any] | None = None):
        self.namespace = namespace
        self.load_report = load_report
        self._guard = guard or contextlib.nullcontext

    def handle(self, request: requests.Request, arrays: list[np.ndarray]) -> tuple[dict, list[np.ndarray]]:
        """Answer one request; never raises for anything student code does."""
        handler = _HANDLERS.get(type(request))
        if handler is None:
            return failure(ChildError(ErrorKind.BAD_REQUEST, message=f"the executor does not answer {request.op}"))
        try:
            with self._guard():
                result = handler(self, request, arrays)
            if isinstance(result, tuple):  # already a header and its arrays
                return result
            return _encode_result(result)
        except _Refusal as refusal:
            return failure(refusal.error)
        except KitFault as fault:
            return failure(ChildError(ErrorKind.KIT, message=str(fault)[:MAX_MESSAGE]))
        except MachineTooBusy:  # in-process only: the wall-clock backstop, with CPU time left
            return failure(ChildError(ErrorKind.BUSY))
        except TimeLimitExceeded as limit:  # message "stalled": it slept or waited, not used its CPU time
            return failure(ChildError(ErrorKind.TIMEOUT, message=str(limit)))
        except (SystemExit, KeyboardInterrupt, GeneratorExit) as error:
            return failure(ChildError(ErrorKind.EXITED, message=f"{type(error).__name__}({_message(error)})"))
        except Exception as error:
            return failure(describe_exception(error, self.load_report.stub_raises))

    # --- ops -----------------------------------------------------------------

    def _describe(self, request: requests.Describe, arrays: list) -> dict:
        name = request.function
        if name not in self.namespace:
            return {"exists": False, "callable": False, "jitted": False, "type_name": None,
                    "not_implemented_cells": self.load_report.not_implemented_cells,
                    "load_problems": self.load_report.problems, "similar": self._similar(name)}
        obj = self.namespace[name]
        from autograder.child.trace_counting import is_jitted

        return {"exists": True, "callable": callable(obj), "jitted": bool(is_jitted(obj)),
                "type_name": type(obj).__name__, "not_implemented_cells": []}

    def _call(self, request: requests.Call, arrays: list) -> dict:
        import jax
        import jax.numpy as jnp

        fn = self._function(request)
        args, kwargs = self._arguments(request, arrays)
        args = _placed_by_rows(args, request.rows_sharded)
        mode, static_argnums, static_argnames = request.mode, request.static_argnums, request.static_argnames
        if mode == "plain":
            target = fn
        elif mode == "jit":
            target = jax.jit(fn, static_argnums=static_argnums, static_argnames=static_argnames)
        elif mode == "vmap":
            target = jax.vmap(fn, in_axes=request.in_axes)
        elif mode == "grad_sum":
            target = jax.grad(lambda *a, **k: jnp.sum(fn(*a, **k)), argnums=request.argnums)
        else:
            raise _Refusal(ChildError(ErrorKind.BAD_REQUEST, message=f"unknown call mode {mode!r}"))
        checking = jax.debug_key_reuse(True) if request.key_reuse_check else contextlib.nullcontext()
        from autograder.child import wider_floats

        with wider_floats.x64_mode() if request.wider_floats else contextlib.nullcontext(), checking:
            if request.wider_floats:
                args, kwargs = wider_floats.widened((args, kwargs))
            value = jax.block_until_ready(target(*args, **kwargs))
        if request.placements is True:
            from autograder.protocol.placements import placement_of

            # Every leaf, a NumPy one too: a result brought back to the host is on no device, a fact to report.
            try:
                placed = [placement_of(leaf).to_wire() for leaf in jax.tree.leaves(value)]
            except Exception as error:  # the kit's reading of a jax.Array failed: the check's fault, not theirs
                raise KitFault(f"reading where a result lives: {type(error).__name__}: {error}") from None
            return {"value": value, "placements": placed}
        return {"value": value}

    def _trace(self, request: requests.Trace, arrays: list) -> dict:
        from autograder.child import jaxpr_walk
        from autograder.child.jittability import trace_jaxpr

        fn = self._function(request)
        args, kwargs = self._arguments(request, arrays)
        jaxpr = trace_jaxpr(
            fn, args, kwargs,
            static_argnums=request.static_argnums,
            static_argnames=request.static_argnames,
        )
        return {"outermost": sorted(jaxpr_walk.outermost_primitive_names(jaxpr))}

    def _export(self, request: requests.Export, arrays: list) -> tuple[dict, list]:
        import jax

        try:
            from jax import export
        except ImportError as error:  # before JAX 0.6 it needs absl-py: the installation's fault
            raise KitFault(f"jax.export does not import: {type(error).__name__}: {error}") from None
        fn = self._function(request)
        args, kwargs = self._arguments(request, arrays)
        static_argnums, static_argnames = request.static_argnums, request.static_argnames
        rows = _rows_sharding() if request.rows_sharded else None
        abstract_args = [a if i in static_argnums else _abstract(a, rows if i in request.rows_sharded else None)
                         for i, a in enumerate(args)]
        abstract_kwargs = {k: v if k in static_argnames else _abstract(v) for k, v in kwargs.items()}
        from autograder.child import jaxpr_walk, older_jax_exports

        if older_jax_exports.needs_key_data(abstract_args, abstract_kwargs):  # JAX before 0.6
            fn, abstract_args, abstract_kwargs = older_jax_exports.over_key_data(
                fn, abstract_args, abstract_kwargs, static_argnums, static_argnames)
        jitted = jax.jit(fn, static_argnums=static_argnums, static_argnames=static_argnames)
        try:
            with older_jax_exports.pmap_through_shard_map():  # JAX before 0.8
                # Traced first for the claim below; jax.export's own trace of the same jit object then reuses it.
                traced = jitted.trace(*abstract_args, **abstract_kwargs)
                exported = export.export(jitted, platforms=["cpu"])(*abstract_args, **abstract_kwargs)
                program = exported.serialize(vjp_order=1 if request.with_gradient is True else 0)
        except NotImplementedError as error:
            if "callback" in str(error):  # JAX cannot export Python callbacks
                raise _Refusal(ChildError(ErrorKind.HOST_CALLBACK, function=request.function)) from None
            if "pmap_nreps" in str(error):  # an older JAX's pmap (made before the export): JAX's limit, not theirs
                raise KitFault(f"JAX {jax.__version__} cannot export a program holding this jax.pmap "
                               "(JAX 0.8 and newer can); grading uses a newer JAX") from None
            raise
        # Which loop construct the program's one loop operation came from (Submission.trace): saves a Trace.
        claimed = sorted(jaxpr_walk.primitive_names(traced.jaxpr))
        return {"ok": True, "primitives": claimed}, [np.frombuffer(bytes(program), dtype=np.uint8)]

    def _count_traces(self, request: requests.CountTraces, arrays: list) -> dict:
        from autograder.child.trace_counting import count_traces

        fn = self._function(request)
        decoded = self._decode(request.calls_skeleton, arrays)
        warmup = [(tuple(a), dict(k)) for a, k in decoded.get("warmup", [])]
        calls = [(tuple(a), dict(k)) for a, k in decoded.get("calls", [])]
        result = count_traces(fn, calls, warmup=warmup, count_all=request.count_all,
                              static_argnums=request.static_argnums, static_argnames=request.static_argnames)
        # The outputs go back too: a trace count scores only with correct values.
        return {"traces": result.traces, "per_call": result.per_call, "explanations": result.explanations,
                "value": result.outputs}

    # --- helpers -------------------------------------------------------------

    def _function(self, request: requests.Call | requests.Trace | requests.CountTraces | requests.Export) -> Callable:
        # "per_example_grads@with_loss": the student's function inside one of the kit's harnesses.
        name, _, harness = request.function.partition("@")
        fn = self._student_function(name)
        if not harness:
            return fn
        from autograder.child.harnesses import wrap

        try:
            return wrap(harness, name, fn)
        except KeyError as error:
            refusal = ChildError(ErrorKind.BAD_REQUEST, message=f"no harness {harness!r} for {name}: {error}")
            raise _Refusal(refusal) from None

    def _student_function(self, name: str) -> Callable:
        if name not in self.namespace:
            raise _Refusal(ChildError(ErrorKind.MISSING, function=name,
                                      not_implemented_cells=tuple(self.load_report.not_implemented_cells),
                                      load_problems=tuple(self.load_report.problems),
                                      similar=tuple(self._similar(name))))
        fn = self.namespace[name]
        if not callable(fn):
            raise _Refusal(ChildError(ErrorKind.NOT_CALLABLE, function=name, type_name=type(fn).__name__))
        return fn

    def _similar(self, name: str) -> list[str]:
        """Functions the student defined under a name close to `name` (a typo, another case)."""
        import difflib

        defined = [key for key, value in self.namespace.items()
                   if isinstance(key, str) and not key.startswith("_") and callable(value)
                   and getattr(value, "__module__", None) in (None, "__main__")]
        lowered = {key.lower(): key for key in defined}
        if name.lower() in lowered:
            return [lowered[name.lower()]]
        return difflib.get_close_matches(name, defined, n=1, cutoff=0.75)

    def _arguments(self, request: requests.Call | requests.Trace | requests.Export, arrays: list) -> tuple[tuple, dict]:
        decoded = self._decode(request.args_skeleton, arrays)
        return tuple(decoded.get("args", ())), dict(decoded.get("kwargs", {}))

    @staticmethod
    def _decode(skeleton: Any, arrays: list) -> dict:
        import jax

        # device_put, not jnp.asarray: the same uncommitted array of the same
        # canonical dtype, but jnp.asarray stages a copy that XLA compiles once
        # per input shape (about a third of a suite's compiles, all of them
        # grader overhead rather than the student's JAX work).
        value = wire_format.decode(
            skeleton, arrays,
            make_array=jax.device_put,
            make_key=lambda data, impl: jax.random.wrap_key_data(data, impl=impl),
        )
        return value if isinstance(value, dict) else {}


_HANDLERS: dict[type, Callable[..., Any]] = {
    requests.Describe: Executor._describe,
    requests.Call: Executor._call,
    requests.Trace: Executor._trace,
    requests.CountTraces: Executor._count_traces,
    requests.Export: Executor._export,
}


def failure(error: ChildError) -> tuple[dict, list[np.ndarray]]:
    """The answer that reports `error`."""
    return {"ok": False, "error": error.to_wire()}, []


def _abstract(value: Any, sharding: Any = None):
    """The shape and dtype of every array leaf of `value` (what a traced argument keeps), and its sharding if given."""
    import jax

    return jax.tree.map(lambda leaf: jax.ShapeDtypeStruct(np.shape(leaf), jax.numpy.result_type(leaf),
                                                          sharding=sharding)
                        if isinstance(leaf, (jax.Array, np.ndarray, np.generic, int, float, bool, complex)) else leaf,
                        value)


def _rows_sharding():
    """Rows over "the mesh" of every device (docs/curriculum.md, 10_parallel): what a row-sharded argument gets."""
    import jax
    from jax.sharding import NamedSharding, PartitionSpec

    return NamedSharding(jax.make_mesh((jax.device_count(),), ("data",)), PartitionSpec("data"))


def _placed_by_rows(args: tuple, positions: tuple[int, ...]) -> tuple:
    """`args` with the arrays at `positions` placed by rows over the mesh, as a test's sharded input is."""
    if not positions:
        return args
    import jax

    rows = _rows_sharding()
    return tuple(jax.device_put(a, rows) if i in positions else a for i, a in enumerate(args))


def _encode_result(result: dict) -> tuple[dict, list[np.ndarray]]:
    if "value" not in result:
        return {"ok": True, **result}, []
    try:
        skeleton, arrays = wire_format.encode(result["value"], wire_format.leaf_to_array)
    except wire_format.WireFormatError as error:
        return failure(ChildError(ErrorKind.BAD_OUTPUT, message=str(error)))
    facts = {key: item for key, item in result.items() if key != "value"}
    return {"ok": True, **facts, "value_skeleton": skeleton}, arrays


def describe_exception(error: BaseException, stub_raises: AbstractSet[tuple[str, int]] = frozenset()) -> ChildError:
    """A data-only description of a student's exception, for feedback and hints; `stub` when a released
    stub's `raise NotImplementedError` raised it (`stub_raises`, from the cells' parsed source)."""
    return ChildError(ErrorKind.RAISED, type=type(error).__name__,
                      mro=tuple(cls.__name__ for cls in type(error).__mro__),
                      message=_message(error)[:MAX_MESSAGE], where=_student_location(error),
                      stub=isinstance(error, NotImplementedError) and raised_by_stub(error, stub_raises))


def _message(error: BaseException) -> str:
    return str(error).strip()


def _student_location(error: BaseException) -> dict | None:
    """The innermost frame in the student's cells: the function it ran and the line within its cell.

    Cells are compiled one by one, so the line is the one a student sees in
    that cell; the function names the cell better than its position, which
    Jupyter does not show.
    """
    location = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename.startswith("<cell "):
            location = {"function": frame.name, "line": frame.lineno}
    return location
