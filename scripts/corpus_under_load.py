"""The whole corpus graded on a quiet machine, then with every core 4x oversubscribed: the same points.

    .venv/bin/python scripts/corpus_under_load.py [--busy 8] [--jobs 2] [--seed 11] [--config grading.toml]

Every corpus file (tests/corpus/<assignment>/{mistakes,correct}/*.py) is handed
in once, as `<assignment>-<kind>-<file>_<assignment>.py`, and the batch is
graded twice with `autograder grade` and the given grading.toml (the
default's limits: CPU time decides, the wall clock is only a backstop):
first on the machine as it is, then while `--busy` processes spin (8 on a
2-core machine: 4x). Prints the totals, every check whose points differ, and
exits 1 if any does. tests/test_cpu_time_limits.py does the same on a sample
within the test suite's time; this is the whole corpus (about 250 files).
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
CORPUS = ROOT / "tests" / "corpus"


def handed_in(batch: Path) -> int:
    """Copy every corpus file into `batch` under a name that files it under its assignment; how many."""
    batch.mkdir(parents=True)
    count = 0
    for source in sorted(CORPUS.glob("*/*/*.py")):
        assignment, kind = source.parent.parent.name, source.parent.name
        shutil.copy(source, batch / f"{assignment}-{kind}-{source.stem}_{assignment}.py")
        count += 1
    return count


def graded(batch: Path, out: Path, args) -> tuple[dict, float]:
    """{submission: {check: points}} from one `autograder grade` run, and its wall seconds."""
    started = time.monotonic()
    completed = subprocess.run([sys.executable, "-m", "autograder", "--config", str(args.config), "grade",
                                str(batch), "--out", str(out), "--jobs", str(args.jobs), "--seed", str(args.seed)],
                               cwd=ROOT, capture_output=True, text=True)
    seconds = time.monotonic() - started
    if completed.returncode not in (0, 1):
        raise SystemExit(f"autograder grade failed ({completed.returncode}):\n{completed.stderr[-3000:]}")
    points = {}
    for results in sorted(out.glob("*/results.json")):
        data = json.loads(results.read_text())
        points[results.parent.name] = {t["name"]: t["score"] for t in data["tests"]}
    return points, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--busy", type=int, default=8, help="spinning processes while the second run grades")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--config", type=Path, default=ROOT / "grading.toml")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="corpus-under-load-"))
    try:
        count = handed_in(work / "batch")
        quiet, quiet_seconds = graded(work / "batch", work / "quiet", args)
        burn = "import time\nend = time.monotonic() + 3 * 3600\nwhile time.monotonic() < end: pass\n"
        # Each in a session of its own: with the kernel's autogroup scheduling, processes of one session
        # share one slice of the CPU, and the grader's workers have sessions of their own.
        busy = [subprocess.Popen([sys.executable, "-c", burn], start_new_session=True) for _ in range(args.busy)]
        try:
            loaded, loaded_seconds = graded(work / "batch", work / "loaded", args)
            stayed_busy = all(process.poll() is None for process in busy)
        finally:
            for process in busy:
                process.kill()
                process.wait()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    differences = [(name, check, quiet.get(name, {}).get(check), loaded.get(name, {}).get(check))
                   for name in sorted(set(quiet) | set(loaded))
                   for check in sorted(set(quiet.get(name, {})) | set(loaded.get(name, {})))
                   if quiet.get(name, {}).get(check) != loaded.get(name, {}).get(check)]
    total = lambda points: sum(sum(checks.values()) for checks in points.values())  # noqa: E731
    print(f"{count} files; quiet: {len(quiet)} results, {total(quiet):g} points in {quiet_seconds:.0f} s; "
          f"with {args.busy} busy processes on {os.cpu_count()} cores: {len(loaded)} results, "
          f"{total(loaded):g} points in {loaded_seconds:.0f} s; busy throughout: {stayed_busy}")
    for name, check, before, after in differences:
        print(f"  differs: {name}: {check}: quiet {before}, oversubscribed {after}")
    print(f"{len(differences)} check(s) differ")
    return 1 if differences or len(quiet) != count or not stayed_busy else 0


if __name__ == "__main__":
    raise SystemExit(main())
