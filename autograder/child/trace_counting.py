"""Counting how often a function is traced over a sequence of calls.

Works on a student's own `jax.jit` object (JAX's trace-duration events,
filtered by the function's name) and on plain functions (wrapped in a
counting jit). With JAX's cache-miss explanations captured for feedback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import sys
from typing import Any, Callable, Sequence

import jax

TRACE_EVENT = "/jax/core/compile/jaxpr_trace_duration"
MAX_EXPLANATIONS = 5


@dataclasses.dataclass
class TraceCount:
    traces: int
    per_call: list[int]
    explanations: list[str]
    outputs: list[Any] = dataclasses.field(default_factory=list)  # what each counted call returned


def is_jitted(obj: Any) -> bool:
    """Whether `obj` is a function produced by `jax.jit`."""
    return isinstance(obj, jax.stages.Wrapped) and hasattr(obj, "lower") and hasattr(obj, "trace")


def traced_name(jitted: Any) -> str | None:
    """The `fun_name` JAX reports when tracing `jitted`."""
    inner = getattr(jitted, "__wrapped__", None)
    while isinstance(inner, functools.partial):
        inner = inner.func
    return getattr(inner, "__name__", None)


def _eager_primitive_dispatch() -> bool:
    """Whether JAX is tracing its own one-primitive program to run an op eagerly.

    Outside jit, JAX runs each primitive through a jitted wrapper named after
    the primitive (`dispatch.apply_primitive`); for `lax.scan`, `lax.cond` or
    `lax.fori_loop` called eagerly that wrapper is traced again on every call,
    because its parameters hold a new jaxpr of the loop body. Those traces are
    JAX's, not a function of the submission, so trace counts leave them out.
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "apply_primitive" and frame.f_globals.get("__name__") == "jax._src.dispatch":
            return True
        frame = frame.f_back  # type: ignore[assignment]  # None ends the loop
    return False


def _timer_fun_name() -> str:
    """The traced function's name where JAX's event does not carry it (JAX before 0.6: its only record is
    the `log_elapsed_time` timer of jax._src.dispatch that reports the event, a class from 0.5.1 and a
    generator before; found on the stack; see student/jax_support.py)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_globals.get("__name__") == "jax._src.dispatch":
            local = frame.f_locals
            name = local["fun_name"] if "fun_name" in local else getattr(local.get("self"), "fun_name", None)
            if isinstance(name, str):
                return name
        frame = frame.f_back  # type: ignore[assignment]  # None ends the loop
    return ""


@contextlib.contextmanager
def trace_events():
    """Collect the names of every function JAX traces inside the block.

    JAX's own traces for running a single primitive eagerly are left out
    (see `_eager_primitive_dispatch`).
    """
    names: list[str] = []

    def listener(event: str, duration: float, **kwargs: Any) -> None:
        if event == TRACE_EVENT and not _eager_primitive_dispatch():
            names.append(str(kwargs["fun_name"] if "fun_name" in kwargs else _timer_fun_name()))

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        yield names
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)


@contextlib.contextmanager
def cache_miss_explanations():
    """Capture JAX's explanations of tracing-cache misses logged inside the block.

    Only those of calls made outside any trace: a function traced while another is (a loop body inside a
    jitted function) is traced again whenever the outer one is, and that is the outer one's cause.
    """
    from jax._src import core

    records: list[str] = []

    class Collector(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            message = record.getMessage()
            if "CACHE MISS" in message and len(records) < MAX_EXPLANATIONS and core.trace_state_clean():
                records.append(message)

    handler = Collector(level=logging.WARNING)
    logger = logging.getLogger("jax")
    previous = jax.config.jax_explain_cache_misses
    logger.addHandler(handler)
    jax.config.update("jax_explain_cache_misses", True)
    try:
        yield records
    finally:
        jax.config.update("jax_explain_cache_misses", previous)
        logger.removeHandler(handler)


def count_traces(
    fn: Callable,
    calls: Sequence[tuple[tuple, dict]],
    *,
    static_argnums: Sequence[int] = (),
    static_argnames: Sequence[str] = (),
    count_all: bool = False,
    warmup: Sequence[tuple[tuple, dict]] = (),
) -> TraceCount:
    """Trace count of `fn` over `calls`, after the uncounted `warmup` calls.

    A jitted `fn` is called as it is (its own static arguments and cache,
    cleared before the warm-up); a plain `fn` is wrapped in
    `jax.jit(..., static_argnums, static_argnames)`. With `count_all`, every
    trace of any function during the calls counts (for "no new traces at
    all", e.g. a fresh `jax.jit(lambda ...)` per step), and a plain `fn` is
    called as it is, so only the traces it causes itself count.
    """
    if is_jitted(fn):
        if hasattr(fn, "clear_cache"):
            fn.clear_cache()  # earlier checks may have warmed it
        target, name = fn, traced_name(fn)
    elif count_all:
        target, name = fn, None
    else:
        counter = _counting_wrapper(fn)
        target = jax.jit(counter, static_argnums=tuple(static_argnums), static_argnames=tuple(static_argnames))
        name = counter.__name__
    for args, kwargs in warmup:
        jax.block_until_ready(target(*args, **kwargs))
    per_call: list[int] = []
    outputs: list[Any] = []
    explanations: list[str] = []
    for index, (args, kwargs) in enumerate(calls):
        with cache_miss_explanations() as explained, trace_events() as names:
            outputs.append(jax.block_until_ready(target(*args, **kwargs)))
        if count_all:
            per_call.append(len(names))
        else:
            per_call.append(sum(1 for n in names if n == name))
        if index or warmup:  # without a warm-up, the first call's trace is the expected one: no cause to tell
            explanations.extend(explained[:MAX_EXPLANATIONS - len(explanations)])
    return TraceCount(traces=sum(per_call), per_call=per_call, explanations=explanations, outputs=outputs)


def _counting_wrapper(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def counted(*args, **kwargs):
        return fn(*args, **kwargs)

    # A distinct name so that only traces of this wrapper count.
    counted.__name__ = f"autograder_counted_{getattr(fn, '__name__', 'fn')}"
    return counted
