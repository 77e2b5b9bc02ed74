"""Time limits that decide points count CPU time, so a busy machine costs no points.

The parent reads the CPU time of a child's whole process tree through the
zygote (child.zygote.tree_cpu_seconds); the wall-clock backstop (busy_factor
times a limit) never scores: a child starved of CPU is graded again, one that
sleeps is the student's timeout. No test here needs the machine to be fast:
the corpus is graded quiet and oversubscribed, and must score the same (on
one core, shared with four busy loops when oversubscribed, so that the rest
of a test run keeps the other cores).
"""

from __future__ import annotations

import dataclasses
import json
import os
import queue
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from conftest import REPO, course_config

from autograder.child import zygote
from autograder.grade import batch
from autograder.grade.pipeline import GradingOptions, grade_submission
from autograder.grade.run_options import RunOptions
from autograder.reports import gradescope_json
from autograder.reports.out_dir import OutDir
from autograder.sandbox.parent import SandboxTransport

SELU = "    return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)\n"
# Sleeps (using no CPU) in the first child only: the process sandbox keeps one working directory per submission.
SLEEPS_IN_THE_FIRST_CHILD = ("import os, time\nimport jax.numpy as jnp\n\ndef selu(x, alpha=1.67, lmbda=1.05):\n"
                             "    if not os.path.exists('slept'):\n        open('slept', 'w').close()\n"
                             "        time.sleep(3600)\n" + SELU)
SLEEPS_ALWAYS = ("import time\nimport jax.numpy as jnp\n\ndef selu(x, alpha=1.67, lmbda=1.05):\n"
                 "    time.sleep(3600)\n" + SELU)


def test_the_zygote_counts_the_cpu_time_of_a_child_and_of_what_it_started():
    # The grandchild uses 1 s of CPU time however long that takes; the child then waits for it.
    burn = "import time\nwhile time.process_time() < 1.0: pass\n"
    script = f"import subprocess, sys, time\nsubprocess.run([sys.executable, '-c', {burn!r}])\ntime.sleep(60)\n"
    child = subprocess.Popen([sys.executable, "-c", script])
    try:
        while zygote.tree_cpu_seconds(child.pid) < 1.0:  # ends once the grandchild's second is counted
            assert child.poll() is None, "the child ended before its grandchild's CPU time was counted"
            time.sleep(0.1)
        assert zygote.tree_run_queue_seconds(child.pid) >= 0
    finally:
        child.kill()
        child.wait()


def test_in_process_an_endless_loop_ends_by_cpu_time_and_a_sleep_as_stalled():
    from autograder.child.time_limits import MachineTooBusy, TimeLimitExceeded, time_limit

    with pytest.raises(TimeLimitExceeded) as looped:
        with time_limit(0.5, busy_factor=10_000):  # only CPU time can end it
            while True:
                pass
    assert str(looped.value) == "" and time.process_time() > 0.5
    with pytest.raises(TimeLimitExceeded) as slept:
        with time_limit(0.5, busy_factor=2):
            time.sleep(60)
    assert str(slept.value) == "stalled" and not isinstance(slept.value, MachineTooBusy)


def _backstop_config(config):
    """A tiny backstop: one call may take its CPU limit, 5 s, of wall-clock time."""
    return dataclasses.replace(config, limits=dataclasses.replace(config.limits, call_seconds=5, busy_factor=1))


def _grade_selu(tmp_path, code: str, config, seed):
    path = tmp_path / "sub.py"
    path.write_text(code)
    return grade_submission(path, _backstop_config(config),
                            GradingOptions(seed=seed, sandbox="process", assignment="02_where", functions={"selu"}))


def test_a_starved_call_is_graded_again_in_a_fresh_child_and_scores_as_usual(tmp_path, config, seed, monkeypatch):
    # The first child sleeps past the backstop; seen as starved of CPU, the call is tried again, and passes.
    monkeypatch.setattr(SandboxTransport, "_starved", lambda self: True)
    result = _grade_selu(tmp_path, SLEEPS_IN_THE_FIRST_CHILD, config, seed)
    assert result.checks and result.score == result.max_score, [c.feedback for c in result.checks if not c.passed]
    assert result.problem is None


def test_a_call_starved_twice_is_the_graders_problem_not_a_timeout(tmp_path, config, seed, monkeypatch):
    monkeypatch.setattr(SandboxTransport, "_starved", lambda self: True)
    result = _grade_selu(tmp_path, SLEEPS_ALWAYS, config, seed)
    failed = [c for c in result.checks if not c.passed]
    assert failed and all("too busy" in c.feedback and "CPU time" in c.feedback for c in failed), failed
    assert not any("was stopped" in c.feedback for c in failed)
    assert result.problem == "grader_error"  # needs a look: grade it again


def test_a_call_that_sleeps_past_the_backstop_is_the_students_timeout(tmp_path, config, seed):
    # Not starved: it sleeps, so its threads never wait for a CPU (measured, not assumed).
    result = _grade_selu(tmp_path, SLEEPS_ALWAYS, config, seed)
    failed = [c for c in result.checks if not c.passed]
    assert failed and all("was not running but waiting" in c.feedback for c in failed), failed
    assert result.problem is None


# --- the corpus, quiet and oversubscribed ------------------------------------------

CORPUS_UNDER_LOAD = {
    "alice_02_where.ipynb": REPO / "solutions" / "02_where" / "02_where.ipynb",
    "bob_07_vmap_pytrees.ipynb": REPO / "solutions" / "07_vmap_pytrees" / "07_vmap_pytrees.ipynb",
    "carol_02_where.py": REPO / "tests" / "corpus" / "02_where" / "mistakes" / "boolean_mask_sum.py",
    "dave_02_where.py": REPO / "tests" / "corpus" / "02_where" / "mistakes" / "selu_python_if.py",
}
ENDLESS_LOOP = "import jax.numpy as jnp\n\ndef selu(x, alpha=1.67, lmbda=1.05):\n    while True:\n        pass\n"
BUSY_PROCESSES = 4  # 4x the one core the grader runs on, on top of the grader itself
BUSY_SECONDS = 3600  # each busy loop ends by itself after this, even if this test is killed
# The grader and the busy loops share the last core; the rest of the test run keeps the others.
GRADER_CORE = max(os.sched_getaffinity(0))
# Runs the rest of its command line on the grader's core: every process it starts inherits that.
ON_THE_GRADER_CORE = ("import os, sys\n"
                      f"os.sched_setaffinity(0, {{{GRADER_CORE}}})\n"
                      "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])\n")


def _points_per_check(tmp_path, config_path, label: str) -> dict:
    """Grade the small corpus with `autograder grade` on one core; {submission: {check: score}} and the problems."""
    batch, out = tmp_path / f"batch_{label}", tmp_path / f"out_{label}"
    batch.mkdir()
    for name, source in CORPUS_UNDER_LOAD.items():
        shutil.copy(source, batch / name)
    (batch / "erin_02_where.py").write_text(ENDLESS_LOOP)
    command = ["-m", "autograder", "--config", str(config_path), "grade", str(batch), "--out", str(out),
               "--jobs", "2", "--seed", "11"]
    completed = subprocess.run([sys.executable, "-c", ON_THE_GRADER_CORE, *command], cwd=REPO, capture_output=True,
                               text=True, timeout=6 * 3600)  # a hang guard only
    assert completed.returncode in (0, 1), completed.stderr[-3000:]
    graded = {}
    for results in sorted(out.glob("*/results.json")):
        data = json.loads(results.read_text())
        graded[results.parent.name] = ({t["name"]: t["score"] for t in data["tests"]},
                                       data.get("extra_data", {}).get("problem"))
    assert len(graded) == len(CORPUS_UNDER_LOAD) + 1, sorted(graded)
    return graded


@pytest.fixture(scope="module")
def short_limits(tmp_path_factory):
    """grading.toml with a short call limit, so the endless loop ends soon (in CPU time).

    The backstop is generous: the machine may carry others' load on top of the busy loops here, and this
    test is about CPU time deciding points (the backstop's own behaviour is tested above).
    """
    text = (REPO / "grading.toml").read_text().replace("call_seconds = 30", "call_seconds = 3")
    text = text.replace("busy_factor = 10", "busy_factor = 100")
    return course_config(tmp_path_factory.mktemp("config"), text)


def test_an_oversubscribed_machine_grades_the_corpus_exactly_as_a_quiet_one(tmp_path, short_limits):
    quiet = _points_per_check(tmp_path, short_limits, "quiet")
    burn = f"import time\nend = time.monotonic() + {BUSY_SECONDS}\nwhile time.monotonic() < end: pass\n"
    # Each in a session of its own: with the kernel's autogroup scheduling, processes of one session share
    # one slice of the CPU, and the grader's workers have sessions of their own.
    busy = [subprocess.Popen([sys.executable, "-c", ON_THE_GRADER_CORE, "-c", burn], start_new_session=True)
            for _ in range(BUSY_PROCESSES)]
    try:
        loaded = _points_per_check(tmp_path, short_limits, "loaded")
        assert all(process.poll() is None for process in busy), "the machine stayed oversubscribed throughout"
    finally:
        for process in busy:
            process.kill()
            process.wait()
    print("points per check, quiet and oversubscribed:", json.dumps(quiet, sort_keys=True))
    assert loaded == quiet
    endless = quiet["erin_02_where"][0]
    assert endless and any(score == 0 for score in endless.values()), "the endless loop was cut off"
    assert all(problem is None for _, problem in quiet.values())


# --- the batch: a submission the machine was too busy for is graded again -----------

class _BusyOnceWorker:
    """Stands in for a grading worker: its first result for each submission is "the machine was too busy"."""

    def __init__(self, out, config, seed):
        self.out, self.config, self.seed, self.jobs = out, config, seed, []

    def grade(self, job: dict, seconds: float) -> None:
        self.jobs.append(job["name"])
        item = batch.BatchItem(job["name"], Path(job["path"]), student=job["student"])
        result = batch._crashed(item, RunOptions(self.config, self.seed, "process", "02_where"), "stand-in")
        result.problem = "grader_error" if self.jobs.count(job["name"]) == 1 else None
        data = result.to_gradescope()
        data["extra_data"]["finished"] = True  # a worker's own result, as batch_worker writes it
        batch._with_identity(data, item)
        batch._write_data_quietly(data, item, self.out)

    def finish(self) -> None:
        pass


def test_a_submission_the_machine_was_too_busy_for_is_graded_again_at_the_end_of_the_batch(tmp_path, config, seed):
    items = [batch.BatchItem(name, tmp_path / f"{name}.py", student=name) for name in ("ana", "bo")]
    for item in items:
        item.path.write_text("x = 1\n")
    pending: queue.SimpleQueue = queue.SimpleQueue()
    for item in items:
        pending.put((item, None))
    with OutDir(tmp_path / "out") as out:
        worker = _BusyOnceWorker(out, config, seed)
        finished = []
        progress = types.SimpleNamespace(finished=finished.append)
        batch._drain(pending, worker, out, RunOptions(config, seed, "process", "02_where"), progress, set())
        problems = {item.name: gradescope_json.read(out, item.name)["extra_data"]["problem"] for item in items}
    assert worker.jobs == ["ana", "bo", "ana", "bo"], "each graded again, behind every other submission"
    assert len(finished) == 2 and problems == {"ana": None, "bo": None}


def test_resume_grades_again_a_result_the_machine_was_too_busy_for(tmp_path, config, seed):
    item = batch.BatchItem("ana", tmp_path / "ana.py", student="ana")
    item.path.write_text("x = 1\n")
    with OutDir(tmp_path / "out") as out:
        _BusyOnceWorker(out, config, seed).grade({"name": "ana", "path": str(item.path), "student": "ana"}, 1.0)
        run = RunOptions(config, seed, "process")
        reason = batch._why_not_reusable(item, batch.content_digest(item.path), out, run)
    assert reason is not None and "too busy" in reason
