"""Lowering in the sandbox child: one MLIR context per thread instead of one per program.

This replaces a private function of JAX (`jax._src.interpreters.mlir.make_ir_context`),
checked against the JAX the grader pins; with another JAX that lacks it, nothing changes.
"""

from __future__ import annotations


def reuse_one_per_thread() -> None:
    """One MLIR context per thread for every program this child lowers, instead of one per program.

    JAX makes a fresh context for each program it lowers, and loading every dialect into it takes
    about 3 ms: with a program per eager operation and shape, about half of a child's time. A child
    lives for one submission, so what a shared context keeps (uniqued types and attributes) stays
    small; the programs, their cache keys and so their compiled code are the same.
    """
    import threading

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
