"""Benchmark: `autograder grade` against `nbgrader autograde` on the same submissions, and JAX's floor.

    .venv/bin/python benchmarks/run.py [--n 40] [--jobs J] [--json out/benchmark.json]

A pipeline of named steps, run on this machine in one go:
1. build N submissions per assignment (full solutions, partial ones, stubs);
2. measure the floor of each assignment (benchmarks/floor.py);
3. grade them all with `autograder grade --jobs J`;
4. grade the same notebooks with real `nbgrader autograde` (unless --skip-nbgrader);
5. time a student's checks: `autograder check` cold and with a new seed, and a check cell in a running kernel;
   and the student package's `autograder check`, cold and again (benchmarks/student_check.py);
6. a small batch: 16 full solutions of one assignment, with both graders;
7. the OS sandbox's cost per child (benchmarks/isolation.py);
   and what progress reporting costs per submission (benchmarks/progress_cost.py);
8. print one table, and write it as JSON.
Every assignment with a solution, a released stub and a suite is included.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import check_latency  # noqa: E402  (benchmarks/check_latency.py)
import report  # noqa: E402  (benchmarks/report.py)
import student_check  # noqa: E402  (benchmarks/student_check.py)
import submissions  # noqa: E402
from nbgrader_course import Course, check_kit_config  # noqa: E402


@dataclasses.dataclass
class Run:
    args: argparse.Namespace
    work: Path
    assignments: list[str]
    batch: list = dataclasses.field(default_factory=list)  # submissions.Submission
    results: dict = dataclasses.field(default_factory=dict)  # what the table and the JSON show


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    work = Path(args.work_dir or tempfile.mkdtemp(prefix="autograder-bench-"))
    run = Run(args, work, submissions.benchmarked_assignments(args.assignments))
    run.results["machine"] = {"cores": os.cpu_count(), "load_average_at_start": os.getloadavg(),
                              "python": platform.python_version(), "platform": platform.platform()}
    try:
        for step in (build_submissions, measure_floor, grade_with_autograder, grade_with_nbgrader, time_check,
                     grade_small_batch, measure_isolation_cost, measure_progress_cost):
            print(f"[benchmark] {step.__name__.replace('_', ' ')} ...", file=sys.stderr, flush=True)
            step(run)
        run.results["machine"]["load_average_at_end"] = os.getloadavg()
        summary = report.summarize(run.results)
        print(report.table(summary))
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(summary, indent=2))
            print(f"\nJSON: {args.json}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchmarks/run.py", description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40, help="submissions per assignment (default 40)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="autograder grade --jobs (default: cores)")
    parser.add_argument("--seed", type=int, default=2026,
                        help="hidden-input seed for both graders, and the batch's mix")
    parser.add_argument("--json", type=Path, default=ROOT / "out" / "benchmark.json", help="where to write the JSON")
    parser.add_argument("--assignments", nargs="+", metavar="NAME", help="only these assignments")
    parser.add_argument("--skip-nbgrader", action="store_true", help="leave out nbgrader (no throughput ratio)")
    parser.add_argument("--floor-repeats", type=int, default=3)
    parser.add_argument("--small-batch", type=int, default=16, help="full solutions in the small batch (0: skip it)")
    parser.add_argument("--small-batch-assignment", default="01_immutable_updates")
    parser.add_argument("--work-dir", type=Path, help="keep the course, submissions and results here")
    parser.add_argument("--keep", action="store_true", help="do not delete the work directory")
    return parser


# --- steps ---------------------------------------------------------------------

def build_submissions(run: Run) -> None:
    for assignment in run.assignments:
        for submission in submissions.build(assignment, run.args.n, run.args.seed):
            submissions.write(submission, run.work / "submissions" / submission.file_name)
            run.batch.append(submission)
    run.results["batch"] = {"assignments": run.assignments, "per_assignment": run.args.n,
                            "kinds": {k: sum(s.kind == k for s in run.batch) for k in submissions.KINDS},
                            "seed": run.args.seed, "jobs": run.args.jobs}


def measure_floor(run: Run) -> None:
    floors = {}
    for assignment in run.assignments:
        completed = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "floor.py"), assignment,
                                    "--seed", str(run.args.seed), "--repeats", str(run.args.floor_repeats)],
                                   capture_output=True, text=True, cwd=ROOT)
        if completed.returncode != 0:
            raise RuntimeError(f"floor of {assignment} failed:\n{completed.stderr[-3000:]}")
        floors[assignment] = json.loads(completed.stdout.strip().splitlines()[-1])
    run.results["floor"] = floors


def grade_with_autograder(run: Run) -> None:
    out = run.work / "autograder-results"
    # A cache of its own: the run starts cold, as a new seed's reference programs do.
    env = dict(os.environ, AUTOGRADER_JAX_CACHE=str(run.work / "jax-cache"))
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "autograder", "grade", str(run.work / "submissions"),
                                "--out", str(out), "--jobs", str(run.args.jobs), "--seed", str(run.args.seed)],
                               capture_output=True, text=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"autograder grade failed:\n{completed.stderr[-3000:]}")
    graded = []
    for submission in run.batch:
        data = json.loads((out / submission.file_name.removesuffix(".ipynb") / "results.json").read_text())
        extra = data["extra_data"]
        graded.append({"student": submission.student, "assignment": submission.assignment, "kind": submission.kind,
                       "score": data["score"], "finished": extra.get("finished") is True, **extra.get("grading", {})})
    run.results["autograder"] = {"wall_seconds": wall, "submissions": graded}


def grade_with_nbgrader(run: Run) -> None:
    if run.args.skip_nbgrader:
        run.results["nbgrader"] = None
        return
    check_kit_config()
    course = Course(run.work / "course", run.args.seed)
    for assignment in run.assignments:
        course.add_assignment(assignment)
    for submission in run.batch:
        submissions.write(submission, course.submission_path(submission.student, submission.assignment))
    walls, scores = {}, {}
    for assignment in run.assignments:
        walls[assignment] = course.autograde(assignment)
        scores[assignment] = course.scores(assignment)
    run.results["nbgrader"] = {"wall_seconds": sum(walls.values()), "per_assignment_wall_seconds": walls,
                               "scores": scores}


def time_check(run: Run) -> None:
    """A student's three waits per assignment (benchmarks/check_latency.py): `autograder check` cold,
    then with a new seed, and a check cell run again with a new seed in a running kernel."""
    from autograder import grading_config

    command = _autograder_command()
    config = grading_config.load()
    timings = {}
    for assignment in run.assignments:
        # Cold is a machine's first check: caches of its own, and so no compiled program and no warm server.
        env = {k: v for k, v in os.environ.items() if k not in ("AUTOGRADER_JAX_CACHE", "AUTOGRADER_WARM_CHECKS")}
        env["XDG_CACHE_HOME"] = str(run.work / "check-cache" / assignment)
        notebook = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
        cold = check_latency.check_command_seconds(command, notebook, run.args.seed, env, ROOT)
        new_seed = check_latency.check_command_seconds(command, notebook, run.args.seed + 1, env, ROOT)
        cells = check_latency.check_cell_seconds(notebook, config.functions(assignment), run.args.seed + 2)
        timings[assignment] = {"cold_seconds": cold, "new_seed_seconds": new_seed,
                               "check_cell_seconds": max(cells.values()), "check_cell_per_exercise": cells}
    run.results["check"] = timings
    run.results["student_check"] = student_check.timings(run.work, run.assignments)


def grade_small_batch(run: Run) -> None:
    """N copies of one assignment's full solution, graded by both: what a batch's fixed costs weigh."""
    count, assignment = run.args.small_batch, run.args.small_batch_assignment
    if not count:
        run.results["small_batch"] = None
        return
    folder = run.work / "small-batch"
    solution = ROOT / "solutions" / assignment / f"{assignment}.ipynb"
    students = [f"full{i:02d}" for i in range(count)]
    for student in students:
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy(solution, folder / f"{student}_{assignment}.ipynb")
    env = dict(os.environ, AUTOGRADER_JAX_CACHE=str(run.work / "small-batch-jax-cache"))
    started = time.perf_counter()
    completed = subprocess.run([sys.executable, "-m", "autograder", "grade", str(folder), "--out",
                                str(run.work / "small-batch-results"), "--jobs", str(run.args.jobs),
                                "--seed", str(run.args.seed)], capture_output=True, text=True, cwd=ROOT, env=env)
    ours = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"autograder grade (small batch) failed:\n{completed.stderr[-3000:]}")
    theirs = None
    if not run.args.skip_nbgrader:
        course = Course(run.work / "small-batch-course", run.args.seed)
        course.add_assignment(assignment)
        for student in students:
            path = course.submission_path(student, assignment)
            path.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(solution, path)
        theirs = course.autograde(assignment)
    run.results["small_batch"] = {"assignment": assignment, "submissions": count,
                                  "autograder_wall_seconds": ours, "nbgrader_wall_seconds": theirs}


def measure_isolation_cost(run: Run) -> None:
    completed = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "isolation.py")],
                               capture_output=True, text=True, cwd=ROOT)
    if completed.returncode != 0:
        run.results["isolation"] = {"error": completed.stderr.strip().splitlines()[-1:]}
        return
    run.results["isolation"] = json.loads(completed.stdout.strip().splitlines()[-1])


def measure_progress_cost(run: Run) -> None:
    completed = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "progress_cost.py")],
                               capture_output=True, text=True, cwd=ROOT)
    if completed.returncode != 0:
        run.results["progress"] = {"error": completed.stderr.strip().splitlines()[-1:]}
        return
    run.results["progress"] = json.loads(completed.stdout.strip().splitlines()[-1])


def _autograder_command() -> list[str]:
    script = Path(sys.executable).parent / "autograder"
    return [str(script)] if script.exists() else [sys.executable, "-m", "autograder"]


if __name__ == "__main__":
    raise SystemExit(main())
