"""How long a student with the student package waits for `autograder check`, per assignment.

The student distribution is built from this checkout and installed in a
fresh virtual environment with the pinned JAX (as a student's laptop has it,
without the kit's repository). Per assignment, on its solution notebook:

- cold: the first `autograder check` on the machine (an empty compilation cache, no warm server);
- repeated: the same command again (the cache holds the first run's programs, and the warm server the
  first run started forks the check: autograder/warm_start).

Each figure is wall time; `*_cpu_seconds` beside it is the CPU time (user and
system) of the command's whole process tree, which a busy machine changes far
less than wall time. Run on its own, it prints the load average before and after.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import check_latency  # benchmarks/check_latency.py

ROOT = Path(__file__).resolve().parent.parent


def student_venv(work: Path) -> Path:
    """A venv in `work` holding the pinned jax and jaxlib, the student package's dependencies and its wheel."""
    from autograder import grading_config
    from autograder.integrations import release
    from autograder.student import wheel

    dist = work / "student-dist"
    with contextlib.redirect_stdout(sys.stderr):  # what release says, not into the timings printed
        release.student_dist(grading_config.load(), dist)
    venv = work / "student-venv"
    subprocess.run([shutil.which("python3.11") or sys.executable, "-m", "venv", "--without-pip", str(venv)],
                   check=True)
    import importlib.metadata

    pinned = importlib.metadata.version("jax")
    # The graders' ml_dtypes too (pyproject.toml says why): pip would take the newest, whose import alone adds
    # 0.7 s to every process that imports JAX (docs/students.md tells students so).
    requirements = [r for r in wheel.REQUIRES if not r.startswith(("jax>=", "jaxlib>="))]
    python = venv / "bin" / "python"
    # Compiled to bytecode as pip installs by default, even where PYTHONDONTWRITEBYTECODE is set: a student's
    # JAX imports from .pyc files.
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--compile",
                    f"jax=={pinned}", f"jaxlib=={pinned}", f"ml_dtypes=={importlib.metadata.version('ml_dtypes')}",
                    *requirements], check=True, env=environment)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    "--compile", *map(str, dist.glob("*.whl"))], check=True, env=environment)
    return python


def check_seconds(python: Path, notebook: Path, cache_home: Path, cwd: Path) -> float:
    """Wall time of the student package's `autograder check NOTEBOOK` with its caches under `cache_home`."""
    return check_times(python, notebook, cache_home, cwd)[0]


def check_times(python: Path, notebook: Path, cache_home: Path, cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time (user and system, every process it started included, and the warm server's forks
    that ran it) of the student package's `autograder check NOTEBOOK` with its caches under `cache_home`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "JAX_", "XLA_", "PYTHON"))}
    env["XDG_CACHE_HOME"] = str(cache_home)
    return check_latency.command_times([str(python.parent / "autograder"), "check", str(notebook)], env, cwd)


def timings(work: Path, assignments: list[str]) -> dict[str, dict[str, float]]:
    python = student_venv(work)
    found = {}
    for assignment in assignments:
        folder = work / "student-check" / assignment
        folder.mkdir(parents=True)
        notebook = folder / f"{assignment}.ipynb"
        shutil.copy(ROOT / "solutions" / assignment / f"{assignment}.ipynb", notebook)
        cache = folder / "cache"
        cold, cold_cpu = check_times(python, notebook, cache, folder)
        repeated, repeated_cpu = check_times(python, notebook, cache, folder)
        found[assignment] = {"cold_seconds": cold, "repeated_seconds": repeated,
                             "cold_cpu_seconds": cold_cpu, "repeated_cpu_seconds": repeated_cpu}
    return found


if __name__ == "__main__":
    import json
    import tempfile

    sys.path.insert(0, str(ROOT))
    names = sys.argv[1:] or sorted(p.name for p in (ROOT / "solutions").iterdir() if p.name[:2].isdigit())
    print(f"load average at the start: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as scratch:
        print(json.dumps(timings(Path(scratch), names), indent=1))
    print(f"load average at the end: {os.getloadavg()[0]:.2f}", file=sys.stderr)
