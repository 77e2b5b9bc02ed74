"""Lowering with one MLIR context per thread instead of one per program.

This replaces a private function of JAX (`jax._src.interpreters.mlir.make_ir_context`),
checked against the JAX the grader pins; with another JAX that lacks it, nothing changes.
JAX makes a fresh context for each program it lowers, and loading every dialect into it
takes about 3 ms: with a program per eager operation and shape, about half of a
submission's time. A shared context keeps what it uniques (types, attributes) for as long
as it lives, so it is shared only for a bounded stretch: a sandbox child's life (one
submission), or one submission's transport in the in-process backend. The programs, their cache keys
and so their compiled code are the same either way.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator


def reuse_one_per_thread() -> None:
    """For the rest of this process (a sandbox child): one MLIR context per thread for every program lowered."""
    from jax._src.interpreters import mlir

    if not callable(getattr(mlir, "make_ir_context", None)):
        return  # another JAX: lowering keeps its own contexts, only slower
    make = getattr(mlir.make_ir_context, "__wrapped__", mlir.make_ir_context)
    local = threading.local()

    def make_ir_context():
        context = getattr(local, "context", None)
        if context is None:
            context = local.context = make()
        return context

    make_ir_context.__wrapped__ = make  # type: ignore[attr-defined]
    mlir.make_ir_context = make_ir_context


class SharedContext:
    """One MLIR context for every program the calling thread lowers inside `installed()`, kept between blocks.

    For long-lived processes that run student code in-process (check cells, `autograder check`): the
    in-process backend keeps one per submission, so the context lives as long as that submission's
    transport. Other threads, and everything outside the blocks, get JAX's own fresh contexts. Inside
    reuse_one_per_thread (already shared) it changes nothing.
    """

    def __init__(self):
        self._context = None

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        from jax._src.interpreters import mlir

        original = getattr(mlir, "make_ir_context", None)
        if not callable(original) or hasattr(original, "__wrapped__"):
            yield
            return
        owner = threading.get_ident()

        def make_ir_context():
            if threading.get_ident() != owner:
                return original()
            if self._context is None:
                self._context = original()
            return self._context

        make_ir_context.__wrapped__ = original  # type: ignore[attr-defined]
        mlir.make_ir_context = make_ir_context
        try:
            yield
        finally:
            mlir.make_ir_context = original
