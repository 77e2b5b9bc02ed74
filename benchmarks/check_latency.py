"""How long a student waits for a check: the three latencies of issue "fast checks", per assignment.

- cold: `autograder check` of the full solution notebook in a new process, with an empty
  cache folder (the first check on a machine: no compiled programs, no warm server);
- new seed: `autograder check` again right after, with another seed (the persistent
  compilation cache holds the first run's programs, and the warm server the first run
  started forks it: autograder/warm_start);
- check cell: in a running Jupyter kernel that has run the notebook (and so each check
  cell once), each exercise's check cell run again with a new seed; the slowest exercise.
"""

from __future__ import annotations

import os
import resource
import subprocess
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

TIMER = "__autograder_bench_time"


def check_command_seconds(command: list[str], notebook: Path, seed: int, env: dict, cwd: Path) -> float:
    """Wall time of `autograder check NOTEBOOK --seed SEED` in a new process."""
    return command_times([*command, "check", str(notebook), "--seed", str(seed)], env, cwd)[0]


def command_times(argv: list[str], env: dict, cwd: Path) -> tuple[float, float]:
    """Wall time and CPU time of a check command: user and system time of every process it started, and of the
    warm server that ran it, its forks included (autograder/warm_start; a server started under env's
    XDG_CACHE_HOME)."""
    cache_home = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    served_before = _served_cpu_seconds(cache_home)
    started = time.perf_counter()
    completed = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    served = _served_cpu_seconds(cache_home) - served_before
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
    return seconds, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime + served


def _served_cpu_seconds(cache_home: Path) -> float:
    """CPU time of the live warm servers under `cache_home`: their own (a first check's server imports what the
    check would have) and their ended forks' (/proc/PID/stat: utime, stime, cutime, cstime)."""
    ticks = 0
    for lock in (cache_home / "autograder" / "warm-checks").glob("*.lock"):
        pid = lock.read_text().strip()
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        ticks += sum(int(field) for field in fields[11:15])
    return ticks / os.sysconf("SC_CLK_TCK")


def check_cell_seconds(notebook_path: Path, functions: list[str], seed: int) -> dict[str, float]:
    """Per exercise: a check cell's time in a kernel that already ran the whole notebook, with a new seed."""
    notebook = nbformat.read(notebook_path, as_version=4)
    for function in functions:
        notebook.cells.append(nbformat.v4.new_code_cell(
            f"import time as _t\n{TIMER} = _t.perf_counter()\ncheck({function!r}, globals(), seed={seed})\n"
            f"print('{TIMER}', _t.perf_counter() - {TIMER})"))
    NotebookClient(notebook, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(notebook_path.parent)}}).execute()
    timings = {}
    for function, cell in zip(functions, notebook.cells[-len(functions):], strict=True):
        printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        timings[function] = float(printed.split(TIMER)[-1].split()[0])
    return timings
