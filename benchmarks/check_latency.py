"""How long a student waits for a check: the three latencies of issue "fast checks", per assignment.

- cold: `autograder check` of the full solution notebook in a new process, with an empty
  compilation cache (the first check on a machine);
- new seed: `autograder check` again right after, with another seed (the persistent
  compilation cache holds the first run's programs);
- check cell: in a running Jupyter kernel that has run the notebook (and so each check
  cell once), each exercise's check cell run again with a new seed; the slowest exercise.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

TIMER = "__autograder_bench_time"


def check_command_seconds(command: list[str], notebook: Path, seed: int, env: dict, cwd: Path) -> float:
    """Wall time of `autograder check NOTEBOOK --seed SEED` in a new process."""
    started = time.perf_counter()
    completed = subprocess.run([*command, "check", str(notebook), "--seed", str(seed)], capture_output=True,
                               text=True, cwd=cwd, env=env)
    seconds = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"autograder check {notebook} failed:\n{completed.stdout[-2000:]}{completed.stderr[-2000:]}")
    return seconds


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
