"""The floor: what JAX itself needs to grade one full solution, in one warm process.

Run as `python benchmarks/floor.py ASSIGNMENT --seed S` (a fresh process per
assignment, so nothing is compiled yet); prints one JSON object.

Steps:
1. warm up: import JAX, start its backend, run one operation;
2. record: grade the solution once in this process (in-process backend) and
   keep every request the suite sent (calls, traces, trace counts, with
   their hidden inputs);
3. measure, `repeats` times, after clearing JAX's caches: execute the
   solution's cells that grading executes (imports and definitions: the
   unchanged examples are skipped, as the grader skips them) and replay
   the recorded requests straight to an Executor: the graded functions
   traced, compiled and run exactly as grading asks, with no pytest, no
   channel, no sandbox and no comparison.
The floor is the median of cells + requests; both parts are reported.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="floor.py")
    parser.add_argument("assignment")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    _warm_up()
    requests = _record(args.assignment, args.seed)
    cells, calls = [], []
    for _ in range(args.repeats):
        cell_seconds, call_seconds = _measure(args.assignment, requests)
        cells.append(cell_seconds)
        calls.append(call_seconds)
    print(json.dumps({
        "assignment": args.assignment, "requests": len(requests), "repeats": args.repeats,
        "cells_seconds": statistics.median(cells), "graded_calls_seconds": statistics.median(calls),
        "floor_seconds": statistics.median(c + g for c, g in zip(cells, calls, strict=True)),
    }))


def _warm_up() -> None:
    import jax
    import jax.numpy as jnp

    jax.block_until_ready(jnp.arange(3.0) + 1)


def _record(assignment: str, seed: int) -> list[tuple[object, list]]:
    from autograder.check.runner import run_checks
    from autograder.check.submission import Submission
    from autograder.load.submission_source import read
    from autograder.sandbox.inprocess import InProcessTransport, load_namespace

    config_limits = _limits()
    source = read(_solution(assignment))
    namespace, report = load_namespace(source, config_limits.load_seconds, _skipped(assignment, source))
    inner = InProcessTransport(namespace, report, config_limits.call_seconds, config_limits.submission_seconds)
    recorded: list[tuple[object, list]] = []

    class Recording:
        call_seconds, submission_seconds = inner.call_seconds, inner.submission_seconds

        def request(self, request, arrays):
            recorded.append((request, [a.copy() for a in arrays]))
            return inner.request(request, arrays)

    outcomes = run_checks(assignment, Submission(Recording(), report.notes), seed)
    failed = [o for o in outcomes if not o.passed]
    if failed:
        raise SystemExit(f"the {assignment} solution fails {[(o.function, o.prop) for o in failed]}: no floor")
    return recorded


def _measure(assignment: str, requests: list[tuple[object, list]]) -> tuple[float, float]:
    import jax

    from autograder.child.cell_execution import execute_cells
    from autograder.child.executor import Executor
    from autograder.load.submission_source import read

    jax.clear_caches()  # compile everything again, as a fresh sandbox child does
    source = read(_solution(assignment))
    namespace: dict = {"__name__": "__main__"}
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        report = execute_cells(source.cells, namespace, _skipped(assignment, source))
    cells = time.perf_counter() - started
    executor = Executor(namespace, report)
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for request, arrays in requests:
            executor.handle(request, [a.copy() for a in arrays])
    return cells, time.perf_counter() - started


def _solution(assignment: str) -> Path:
    return ROOT / "solutions" / assignment / f"{assignment}.ipynb"


def _limits():
    from autograder import grading_config

    return grading_config.load().limits


def _skipped(assignment: str, source) -> frozenset[int]:
    """The cells grading does not run (autograder.load.example_cells)."""
    from autograder import grading_config
    from autograder.load import example_cells

    return example_cells.cells_to_skip_in(assignment, source.cells, grading_config.load())


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main()
