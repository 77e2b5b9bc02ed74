"""A grading worker: grades the submissions the batch parent sends it, one at a time.

Run by autograder.grade.batch as
`python -m autograder.grade.batch_worker --report-fd N [...]`.
It reads the run's options first, one JSON line on stdin (grade.run_options:
the seed, grading.toml as the parent read it, the sandbox, the language, the
hint level: it parses no command line for them and reads no grading.toml),
then one job per line (JSON: path, name, out, out_identity),
writes that submission's `<out>/<name>/results.json` through reports.out_dir
(into the out dir the parent opened, checked by device and inode, never
through a link), and answers one JSON line on the report descriptor. What it
pays once for all its submissions instead of once for each: the Python
start-up and imports (jax, pytest), the pytest session and
the collection of the suites (suite_session), the sandbox child's start-up
and `import jax` (its zygote forks each child; the zygote is a clone of the
batch's, zygote_client.ZygoteTemplate), and the compilation of the
suites' reference programs (JAX's caches, see compilation_cache). What the
batch's workers pay once between them: the compilation of JAX's own
programs at the batch's hidden shapes (sandbox.shared_programs).

If grading a job fails in the worker itself (student code cannot reach it:
it runs in the sandbox child), the worker reports the failure and exits;
the batch parent records it for that submission alone and starts a fresh
worker for the next one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING, Callable

# Only what starting the zygote needs: it starts before this process imports pytest, numpy
# and JAX (seconds, see _Worker), so that both import at the same time.
from autograder import course_suites, grading_config
from autograder.catalog import messages
from autograder.grade import worker_handle
from autograder.grade.run_options import RunOptions
from autograder.sandbox import compilation_cache
from autograder.sandbox.zygote_client import Zygote, ZygoteUnavailable

if TYPE_CHECKING:
    from autograder.grade.pipeline import WorkerResources
    from autograder.sandbox.program_runner import ConfinedProgramRunner

WORKER_MEMORY_BYTES = 8 << 30


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="autograder.grade.batch_worker")
    parser.add_argument("--report-fd", type=int, required=True)
    parser.add_argument("--programs-dir", type=Path,
                        help="the batch's store of JAX's compiled programs, shared by its workers")
    parser.add_argument("--build-parts", type=int, default=1,
                        help="split building the store's programs of an assignment into this many parts")
    parser.add_argument("--worker-index", type=int, default=0, help="which part this worker builds first")
    parser.add_argument("--parent-pid", type=int, help="the batch parent: this worker dies with it")
    parser.add_argument("--zygote-fd", type=int,
                        help="a channel to this worker's zygote, a clone of the batch's (zygote_client.ZygoteTemplate)")
    parser.add_argument("--collect", help="comma-separated: the assignments whose suites to collect at start "
                                          "(the others run in a pytest run of their own); default all")
    args = parser.parse_args(argv)
    # Before anything starts (the zygote, its children): a killed batch parent ends this worker
    # at once, even mid-submission, and with it everything it started.
    worker_handle.die_with_parent(args.parent_pid)
    # The worker runs the suites' reference computations; the programs children export run in the
    # clean-room runner (sandbox.program_runner), never here. A cap all the same.
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, WORKER_MEMORY_BYTES))
    run = RunOptions.from_json((sys.__stdin__ or sys.stdin).readline())  # the parent's, before any job
    # The course's own suites and catalogs join the kit's here too, as reading its grading.toml did in the parent.
    course_suites.use(run.config.course)
    worker = _Worker(args, run, os.fdopen(args.report_fd, "w", buffering=1))
    from autograder.check import suite_session

    try:
        collect = [a for a in (args.collect or "").split(",") if a in run.config.assignments]
        collect = collect or run.config.assignments
        with messages.speaking(run.language), messages.hinting(run.hints):
            suite_session.serve(collect, lambda run_checks: worker.serve(run_checks, collect))
    finally:
        worker.close()
    # Every result is written (atomically) and reported: what interpreter shutdown would still do,
    # mostly tearing down JAX's CPU backend, only delays the batch, which waits for this exit.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(0)


def _prepare_first_job(config: grading_config.GradingConfig, assignments: list[str]) -> None:
    """Import what grading a submission imports, and read one solution notebook (nbformat's validator).

    Called before the worker waits for its zygote, a clone of the batch's template, which imports JAX
    for a second or more; until then this worker has nothing else to do, and doing it here takes
    about a quarter of a second off the first submission.
    """
    from autograder.grade import pipeline, result_provenance  # noqa: F401
    from autograder.load.submission_source import SubmissionError, read
    from autograder.reports import gradescope_json, out_dir  # noqa: F401

    if not assignments:
        return
    try:
        read(config.solution_notebook(assignments[0]))
    except (OSError, SubmissionError):
        pass  # the store's build says what is wrong with it, if it needs it


class _Worker:
    def __init__(self, args, run: RunOptions, report):
        self.args, self.run, self._report = args, run, report  # args: this process's plumbing, not the run's
        self.config = run.config
        self._backend = run.sandbox  # "os" or "process", as pipeline.SANDBOX_MODES names them
        self._zygote: Zygote | None = None
        self._zygote_failed = False
        # The batch's clone, adopted by the first _renew_zygote; a later one starts its own zygote.
        self._zygote_channel = socket.socket(fileno=args.zygote_fd) if args.zygote_fd is not None else None
        self._program_runner: ConfinedProgramRunner  # made just below, once the zygote has started
        self._renew_zygote()  # first: it imports JAX while this process does the same (numpy included)
        from autograder.sandbox.program_runner import ConfinedProgramRunner

        # The clean room for the programs children export: forked from the zygote (see serve).
        self._program_runner = ConfinedProgramRunner.for_config(self._backend, self.config, zygote=self._zygote)
        from autograder.check import runner
        from autograder.sandbox import shared_programs

        compilation_cache.enable("grade")
        self._run_checks: Callable[..., list] = runner.run_checks  # serve() puts the session's in
        self._programs = (shared_programs.SharedPrograms(args.programs_dir, self._build_programs,
                                                         parts=args.build_parts, first_part=args.worker_index)
                          if args.programs_dir is not None else None)

    def serve(self, run_checks, assignments: list[str]) -> None:
        self._run_checks = run_checks
        _prepare_first_job(self.config, assignments)  # while the batch's zygote template is still importing
        self._program_runner.start_ahead()  # its start overlaps the first child's, not the first program's
        self._send({"ready": True, "pid": os.getpid()})
        for line in sys.__stdin__ or ():  # pytest replaces sys.stdin while it captures
            if not self._grade(json.loads(line), run_checks):
                return
            self._renew_zygote()

    def close(self) -> None:
        self._program_runner.close()
        if self._zygote is not None:
            self._zygote.close()

    def _grade(self, job: dict, run_checks) -> bool:
        from autograder.grade.pipeline import GradingOptions, WorkerResources, grade_submission
        from autograder.grade.result_provenance import grading_settings
        from autograder.reports import gradescope_json
        from autograder.reports.out_dir import OutDir

        started = time.monotonic()
        runner_before = (self._program_runner.busy_seconds, self._program_runner.requests)
        resources = WorkerResources(run_suite=run_checks, zygote=self._zygote, program_runner=self._program_runner,
                                    programs=self._programs)
        try:
            options = GradingOptions(seed=self.run.seed, sandbox=self._backend, assignment=self.run.assignment,
                                     name=job["name"], hints=self.run.hint_level)
            result = grade_submission(job["path"], self.config, options, resources)
            seconds = time.monotonic() - started
            data = result.to_gradescope()
            data["extra_data"]["finished"] = True
            data["extra_data"]["sandbox"] = self.run.sandbox
            data["extra_data"]["student"] = job.get("student")
            data["extra_data"]["content_sha256"] = job.get("content_sha256")
            data["extra_data"]["settings"] = grading_settings(self.config, self.run.seed, result.assignment,
                                                              self.run.sandbox, self.run.hints)
            runner = self._program_runner
            data["extra_data"]["grading"] = {"seconds": round(seconds, 3), **self._memory(resources),
                                             "runner_seconds": round(runner.busy_seconds - runner_before[0], 3),
                                             "runner_requests": runner.requests - runner_before[1]}
            # Into the directory the batch parent opened (the same device and inode), never through a link.
            with OutDir(Path(job["out"]), create=False, identity=tuple(job["out_identity"])) as out:
                gradescope_json.write_data(data, out, job["name"])
        except Exception:
            self._send({"name": job["name"], "failed": traceback.format_exc()[-1500:]})
            return False
        self._send({"name": job["name"], "seconds": seconds, **self._memory(resources)})
        return True

    def _build_programs(self, assignment: str, directory: Path, part: int = 0, parts: int = 1) -> None:
        """Grade the kit's solution in a child that writes JAX's cache; keep the programs of JAX's own operations.

        Part `part` of `parts`: only the checks of every parts-th of the assignment's functions."""
        from autograder.grade.pipeline import GradingOptions, WorkerResources, grade_submission
        from autograder.load.submission_source import read
        from autograder.sandbox import shared_programs

        solution = self.config.solution_notebook(assignment)
        defined = shared_programs.defined_names([cell.source for cell in read(solution).cells])  # no solution: raises
        functions = set(list(self.config.functions(assignment))[part::parts]) if parts > 1 else None
        if functions == set():
            return  # more parts than functions
        with tempfile.TemporaryDirectory(prefix="autograder-written-") as written:
            grade_submission(solution, self.config,
                             GradingOptions(seed=self.run.seed, sandbox=self._backend, assignment=assignment,
                                            functions=functions),
                             WorkerResources(run_suite=self._run_checks, zygote=self._zygote,
                                             program_runner=self._program_runner, write_programs_to=Path(written)))
            shared_programs.keep_library_programs(Path(written), defined, directory)

    def _memory(self, resources: WorkerResources) -> dict:
        """Peak resident memory so far, in MiB: this worker, its zygote, and this submission's sandbox children."""
        return {"worker_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "zygote_peak_rss_mb": round(self._zygote.maxrss_kb / 1024, 1) if self._zygote else None,
                "sandbox_peak_rss_mb": round(resources.child_peak_rss_kb / 1024, 1) or None}

    def _renew_zygote(self) -> None:
        """A zygote for the next submission: the running one, or a new one if it died."""
        if self._zygote_failed:
            return
        if self._zygote is not None and self._zygote.alive:
            return
        if self._zygote is not None:
            # A clone the batch's template refused, or one that died, says nothing about a zygote started here.
            never_ready = not self._zygote.ready and not self._zygote.adopted
            self._zygote.close()
            self._zygote = None
            if never_ready:  # it cannot start here: do not try again for every submission
                self._zygote_failed = True
                print("autograder: the zygote could not start; each submission will start its own",
                      file=sys.__stderr__)
                return
        try:
            if self._zygote_channel is not None:
                channel, self._zygote_channel = self._zygote_channel, None
                self._zygote = Zygote.adopt(channel, mode=self.run.sandbox)
            else:
                self._zygote = Zygote(mode=self.run.sandbox, programs=self.args.programs_dir)
            runner = getattr(self, "_program_runner", None)  # None while the first zygote starts
            if runner is not None:
                runner.zygote = self._zygote
        except (OSError, ZygoteUnavailable) as error:
            print(f"autograder: the zygote could not start ({error}); each submission will start its own",
                  file=sys.__stderr__)

    def _send(self, message: dict) -> None:
        self._report.write(json.dumps(message) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
