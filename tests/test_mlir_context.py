"""One MLIR context for a stretch of lowering: shared where asked, JAX's own fresh ones everywhere else."""

from __future__ import annotations

import threading

from jax._src.interpreters import mlir

from autograder.child.mlir_context import SharedContext


def test_a_shared_context_is_one_context_across_its_blocks():
    shared = SharedContext()
    with shared.installed():
        first = mlir.make_ir_context()
        assert mlir.make_ir_context() is first
    with shared.installed():
        assert mlir.make_ir_context() is first


def test_outside_the_block_and_in_other_threads_jax_makes_fresh_contexts():
    original = mlir.make_ir_context
    shared = SharedContext()
    seen = []
    with shared.installed():
        kept = mlir.make_ir_context()
        thread = threading.Thread(target=lambda: seen.append(mlir.make_ir_context()))
        thread.start()
        thread.join()
    assert seen[0] is not kept
    assert mlir.make_ir_context is original
    assert mlir.make_ir_context() is not kept


def test_two_submissions_never_share_a_context():
    with SharedContext().installed():
        one = mlir.make_ir_context()
    with SharedContext().installed():
        assert mlir.make_ir_context() is not one
