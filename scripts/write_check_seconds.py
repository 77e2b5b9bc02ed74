"""Write autograder/suites/check_seconds.toml: what each exercise's check costs, for a check in two processes.

`autograder check` of a whole notebook runs in two processes that take the
exercises costliest first (student/exercise_halves.py): a clone reads this
table, and a release copies it into the student package. Each entry is the
CPU time of `autograder check` of the solution with that exercise alone, in
a fork of a process that has imported JAX and the kit, with an empty
compilation cache (as one of the two processes of a first check), the
least of two runs. Only the order the
seconds give matters: they vary from machine to machine. Assignments graded
with several device counts are checked once per count, not in two halves,
and are left out.

Run after changing a suite or a solution:  .venv/bin/python scripts/write_check_seconds.py
(tests/test_student_dist.py says when the table lacks a function.)
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder import grading_config  # noqa: E402
from autograder.student import check_processes, exercise_halves  # noqa: E402
from autograder.warm_start import server  # noqa: E402

RUNS = 2
HEADER = """\
# The CPU time of `autograder check` of each exercise's solution alone, forked after the imports, with an empty
# compilation cache: a check in two processes (student/exercise_halves.py) takes the costliest first. A clone
# reads it here; a release copies it into the student package. Written by scripts/write_check_seconds.py.
"""


def cpu_seconds(assignment: str, function: str) -> float:
    """The least CPU time of RUNS checks of `function` alone, each in a fork of this process (which has imported
    what a check imports, as a warm server has: student/warm_start) with a compilation cache of its own."""
    spent = []
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory(prefix="autograder-check-seconds-") as cache:
            reading, writing = os.pipe()
            child = os.fork()
            if child == 0:
                os.close(reading)
                os.dup2(writing, 1)
                os.environ.update({check_processes.PART_VARIABLE: "1", "AUTOGRADER_JAX_CACHE": cache})
                from autograder import cli

                code = cli.main(["--config", str(ROOT / "grading.toml"), "check",
                                 str(ROOT / "solutions" / assignment / f"{assignment}.ipynb"), "--seed", "1",
                                 "--exercise", function])
                sys.stdout.flush()
                os._exit(code)
            os.close(writing)
            with os.fdopen(reading, encoding="utf-8") as printed:
                out = printed.read()
            _, status = os.waitpid(child, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"the check of {assignment} {function} failed:\n{out[-2000:]}")
        # A fork's CPU time starts at its fork: what the check of this exercise spent.
        spent.append(float(json.loads(out.strip().splitlines()[-1])["cpu_seconds"]))
    return min(spent)


def main() -> int:
    for name in server.PRELOAD["kit"]:  # imported once, before the forks: none starts JAX's backend
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    config = grading_config.load()
    sections = []
    for assignment in config.assignments:
        if config.device_counts(assignment):
            continue
        lines = [f"{function} = {cpu_seconds(assignment, function):.2f}" for function in config.functions(assignment)]
        sections.append(f"\n[{assignment}]\n" + "\n".join(lines) + "\n")
        print(assignment, flush=True)
    table = ROOT / "autograder" / "suites" / exercise_halves.SECONDS_TABLE
    table.write_text(HEADER + "".join(sections), encoding="utf-8")
    print(f"wrote {table.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
