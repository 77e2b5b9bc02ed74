"""Where the time of `autograder check` on a full solution goes, measured with cProfile.

    .venv/bin/python benchmarks/breakdown.py [ASSIGNMENT ...] [--seed S] [--json FILE]

For each assignment, in a fresh process with an empty compilation cache
(cold) and then again with the cache the first run left (warm): the wall
time without a profiler, and a cProfile run split into
- Python start-up and imports (jax, pytest, nbformat, the kit);
- XLA compiling programs (backend_compile_and_load), or reading them from
  the persistent cache (get_executable_and_time);
- lowering traced programs to MLIR (lower_jaxpr_to_module);
- tracing Python functions to jaxprs (trace_to_jaxpr);
- the rest: running programs, pytest, the checks' own Python.
A sandbox child of `autograder grade` does the same JAX work for the
submission's calls, so the JAX rows also say where a grading child's time
goes. The profiler slows Python down, so the split is reported as shares of
the profiled total next to the unprofiled wall time.
"""

from __future__ import annotations

import argparse
import json
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (row, the function whose cumulative time is that row). Compiling and lowering are siblings under
# JAX's dispatch; a little tracing happens inside lowering (lowering rules written as Python functions).
PARTS = (
    ("XLA compile", "backend_compile_and_load"),
    ("compilation cache read", "get_executable_and_time"),
    ("lowering to MLIR", "lower_jaxpr_to_module"),
    ("tracing", "trace_to_jaxpr"),
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="benchmarks/breakdown.py", description=__doc__.splitlines()[0])
    parser.add_argument("assignments", nargs="*")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from autograder import grading_config

    assignments = args.assignments or grading_config.load().assignments
    rows = {}
    for assignment in assignments:
        with tempfile.TemporaryDirectory(prefix="autograder-breakdown-") as work:
            rows[assignment] = {state: _measure(assignment, args.seed, Path(work), state) for state in ("cold", "warm")}
    print(_table(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


def _measure(assignment: str, seed: int, work: Path, state: str) -> dict:
    """One unprofiled run for the wall time, then one profiled run; both see the cache as `state` left it."""
    notebook = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
    cache = work / "cache"
    command = ["-m", "autograder", "check", str(notebook), "--seed", str(seed)]
    env = {"AUTOGRADER_JAX_CACHE": str(cache), "PATH": str(Path(sys.executable).parent)}
    profile = work / f"{state}.prof"
    snapshot = work / "cache-snapshot"
    if state == "cold":
        _clear(cache)
    else:
        _copy(cache, snapshot)  # the profiled run must see the same cache as the timed one
    started = time.perf_counter()
    subprocess.run([sys.executable, *command], cwd=ROOT, env=env, capture_output=True, check=False)
    wall = time.perf_counter() - started
    if state == "cold":
        _clear(cache)
    else:
        _clear(cache)
        _copy(snapshot, cache)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), *command], cwd=ROOT, env=env,
                   capture_output=True, check=False)
    profiled_wall = time.perf_counter() - started
    stats = pstats.Stats(str(profile))
    parts = {name: _cumulative(stats, function) for name, function in PARTS}
    profiled_total = stats.total_tt
    imports = _cumulative(stats, "_find_and_load", top_level_only=True)
    parts = {"Python start-up and imports": imports + max(0.0, profiled_wall - profiled_total), **parts}
    parts["rest (running programs, pytest, checks)"] = max(0.0, profiled_wall - sum(parts.values()))
    return {"wall_seconds": wall, "profiled_seconds": profiled_wall,
            "shares": {name: seconds / profiled_wall for name, seconds in parts.items()}}


def _cumulative(stats: pstats.Stats, function: str, top_level_only: bool = False) -> float:
    """Cumulative seconds of `function`, counting recursive and nested calls once."""
    total = 0.0
    for (file, _, name), (_, _, _, cumulative, callers) in stats.stats.items():
        if name != function:
            continue
        if top_level_only:
            # Only imports not made from inside another import.
            total += sum(entry[3] for caller, entry in callers.items() if caller[2] != "_call_with_frames_removed")
        else:
            total += cumulative
    return total


def _clear(path: Path) -> None:
    subprocess.run(["rm", "-rf", str(path)], check=True)


def _copy(source: Path, target: Path) -> None:
    _clear(target)
    if source.exists():
        subprocess.run(["cp", "-a", str(source), str(target)], check=True)


def _table(rows: dict) -> str:
    names = list(next(iter(next(iter(rows.values())).values()))["shares"])
    lines = ["autograder check, full solution: wall time (no profiler) and where the profiled time goes"]
    header = f"{'assignment':22} {'run':5} {'wall s':>7}  " + "  ".join(f"{n.split(' (')[0][:22]:>22}" for n in names)
    lines.append(header)
    for assignment, states in rows.items():
        for state, row in states.items():
            shares = "  ".join(f"{row['shares'][n] * 100:21.0f}%" for n in names)
            lines.append(f"{assignment:22} {state:5} {row['wall_seconds']:7.2f}  {shares}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
