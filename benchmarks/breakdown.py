"""Where the time of `autograder check` on a full solution goes.

    .venv/bin/python benchmarks/breakdown.py [ASSIGNMENT ...] [--seed S] [--json FILE] [--cprofile DIR]

For each assignment, `autograder check` on the full solution in a fresh
process, first with an empty compilation cache (cold), then again with what
that run left (warm). The process records JAX's own instrumentation
(jax.monitoring: the time span of every trace, every lowering to MLIR and
every backend compile, and the time spent reading the persistent cache) and
the time its imports take, so the wall time splits into:
- start-up: the Python interpreter starting before any of the kit's code,
  and the process ending;
- imports: jax, pytest, nbformat and the kit, which `check` needs at once;
- tracing: Python functions traced to jaxprs (the submission's and the suite's);
- lowering: jaxprs lowered to MLIR;
- compiling: XLA compiling programs (cold), or loading them from the cache (warm);
- the rest: running the programs, pytest, loading the notebook, comparisons.
Spans of one kind that nest or overlap are counted once. A sandbox child of
`autograder grade` does the same JAX work for a submission's calls. With
--cprofile DIR, each run is also profiled with cProfile into DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVENTS = {
    "/jax/core/compile/jaxpr_trace_duration": "tracing",
    "/jax/core/compile/jaxpr_to_mlir_module_duration": "lowering",
    "/jax/core/compile/backend_compile_duration": "compiling",
}
CACHE_READ = "/jax/compilation_cache/cache_retrieval_time_sec"
ROWS = ("start-up", "imports", "tracing", "lowering", "compiling", "of which cache reads", "rest")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/breakdown.py", description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--cprofile", type=Path, metavar="DIR")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # the measured process itself
    args = parser.parse_args(argv)
    if args.measure:
        return _measured_check(args.measure, args.seed)
    sys.path.insert(0, str(ROOT))
    from autograder import grading_config

    rows = {}
    for assignment in args.assignments or grading_config.load().assignments:
        with tempfile.TemporaryDirectory(prefix="autograder-breakdown-") as work:
            rows[assignment] = {state: _run(assignment, args.seed, Path(work), state, args.cprofile)
                                for state in ("cold", "warm")}
    print(_table(rows))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


def _run(assignment: str, seed: int, work: Path, state: str, cprofile: Path | None) -> dict:
    """One measured process; a cold run starts with no compilation cache, a warm one with the cold run's."""
    cache = work / "cache"
    if state == "cold":
        shutil.rmtree(cache, ignore_errors=True)
    if cprofile is not None:
        cprofile.mkdir(parents=True, exist_ok=True)
        snapshot = work / "snapshot"
        shutil.rmtree(snapshot, ignore_errors=True)
        if cache.exists():
            shutil.copytree(cache, snapshot)
    # One process checks the whole notebook, as one part's process does (a check otherwise runs in two halves:
    # student/exercise_halves.py): this splits one process's time. It prints its result as data, not a table.
    env = dict(os.environ, AUTOGRADER_JAX_CACHE=str(cache), AUTOGRADER_CHECK_PART="1")
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", assignment, "--seed", str(seed)]
    started = time.perf_counter()
    completed = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise SystemExit(f"check of {assignment} failed:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
    measured = json.loads(completed.stdout.strip().splitlines()[-1])
    if cprofile is not None:
        shutil.rmtree(cache, ignore_errors=True)
        if snapshot.exists():
            shutil.copytree(snapshot, cache)  # the profiled run sees the cache the measured one saw
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(cprofile / f"{assignment}-{state}.prof"),
                        "-m", "autograder", "check", str(_solution(assignment)), "--seed", str(seed)],
                       cwd=ROOT, env=env, capture_output=True)
    seconds = {"start-up": wall - measured["process_seconds"], **measured["seconds"]}
    seconds["rest"] = max(0.0, wall - sum(v for k, v in seconds.items() if k != "of which cache reads"))
    return {"wall_seconds": wall, "seconds": seconds}


def _measured_check(assignment: str, seed: int) -> int:
    """In the measured process: imports, then `autograder check` with JAX's monitoring listeners on."""
    started = time.perf_counter()
    import jax.monitoring

    spans: dict[str, list[tuple[float, float]]] = {row: [] for row in EVENTS.values()}
    cache_reads = []
    jax.monitoring.register_event_time_span_listener(
        lambda event, start, end, **_: spans[EVENTS[event]].append((start, end)) if event in EVENTS else None)
    jax.monitoring.register_event_duration_secs_listener(
        lambda event, duration, **_: cache_reads.append(duration) if event == CACHE_READ else None)
    sys.path.insert(0, str(ROOT))
    import pytest  # noqa: F401  (what check imports before its first JAX work)

    import autograder.cli
    import autograder.grade.pipeline  # noqa: F401
    import autograder.reports.terminal_table  # noqa: F401

    imported = time.perf_counter()
    with open(os.devnull, "w") as sink:
        saved, sys.stdout = sys.stdout, sink
        try:
            autograder.cli.main(["check", str(_solution(assignment)), "--seed", str(seed)])
        finally:
            sys.stdout = saved
    seconds = {"imports": imported - started, **{row: _covered(intervals) for row, intervals in spans.items()},
               "of which cache reads": sum(cache_reads)}
    print(json.dumps({"process_seconds": time.perf_counter() - started, "seconds": seconds}), flush=True)
    os._exit(0)  # as the `autograder` command exits (cli.run)


def _covered(intervals: list[tuple[float, float]]) -> float:
    """Length of the union of `intervals`: nested or overlapping spans counted once."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def _solution(assignment: str) -> Path:
    return ROOT / "solutions" / assignment / f"{assignment}.ipynb"


def _table(rows: dict) -> str:
    lines = ["autograder check on each full solution: where the wall time goes (seconds)",
             f"{'assignment':22} {'run':5} {'wall':>6} "
             + " ".join(f"{row.replace('of which ', ''):>12}" for row in ROWS)]
    for assignment, states in rows.items():
        for state, row in states.items():
            values = " ".join(f"{row['seconds'][name]:12.2f}" for name in ROWS)
            lines.append(f"{assignment:22} {state:5} {row['wall_seconds']:6.2f} {values}")
    lines.append("(cache reads are part of compiling; the rest is running programs, pytest, loading and comparing)")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
