"""A long-lived grading worker that crashes or hangs costs only the submission it was grading.

Student code cannot reach the trusted worker, so these tests use a stand-in
worker that speaks the same protocol and fails on command.
"""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest

from autograder.grade import batch
from autograder.grade.worker_handle import WorkerFailed, WorkerHandle, WorkerStopped

FAKE_WORKER = r'''
import json, os, sys, time
report = os.fdopen(int(sys.argv[sys.argv.index("--report-fd") + 1]), "w", buffering=1)
report.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
for line in sys.stdin:
    job = json.loads(line)
    if job["name"] == "crash":
        print("something broke", file=sys.stderr, flush=True)
        os._exit(3)
    if job["name"] == "hang":
        time.sleep(600)
    report.write(json.dumps({"name": job["name"], "seconds": 0.0, "pid": os.getpid()}) + "\n")
'''


@pytest.fixture
def worker():
    handle = WorkerHandle([sys.executable, "-c", FAKE_WORKER])
    yield handle
    handle.close()


def test_a_worker_grades_many_jobs_in_one_process(worker):
    pids = {worker.grade({"name": f"s{i}"}, 30)["pid"] for i in range(3)}
    assert len(pids) == 1


def test_a_crash_fails_that_job_only_and_the_next_job_gets_a_fresh_worker(worker):
    first = worker.grade({"name": "before"}, 30)["pid"]
    with pytest.raises(WorkerFailed) as failure:
        worker.grade({"name": "crash"}, 30)
    assert "something broke" in str(failure.value) and "exit code 3" in str(failure.value)
    after = worker.grade({"name": "after"}, 30)
    assert after["name"] == "after" and after["pid"] != first


def test_a_hang_is_cut_at_the_time_limit_and_the_worker_replaced(worker):
    first = worker.grade({"name": "before"}, 30)["pid"]
    started = time.monotonic()
    with pytest.raises(WorkerFailed, match="exceeded its time limit"):
        worker.grade({"name": "hang"}, 2)
    assert time.monotonic() - started < 20
    assert worker.grade({"name": "after"}, 30)["pid"] != first


def test_stop_from_another_thread_ends_a_hanging_worker_at_once_and_starts_no_other(worker):
    worker.grade({"name": "before"}, 30)
    stopper = threading.Timer(1.0, worker.stop)
    stopper.start()
    started = time.monotonic()
    with pytest.raises(WorkerStopped):
        worker.grade({"name": "hang"}, 300)
    assert time.monotonic() - started < 20
    with pytest.raises(WorkerStopped):
        worker.grade({"name": "after"}, 30)


LINGERING_WORKER = FAKE_WORKER + "time.sleep(600)  # after its last job: a worker slow to finish its session\n"


def test_stop_ends_a_worker_that_is_closing_at_once():
    """Ctrl-C while a drain waits for its worker to exit (up to 30 s): the batch ends now, not then."""
    handle = WorkerHandle([sys.executable, "-c", LINGERING_WORKER])
    handle.grade({"name": "last"}, 30)
    closing = threading.Thread(target=handle.close)
    started = time.monotonic()
    closing.start()
    time.sleep(1.0)
    handle.stop()
    closing.join(timeout=60)
    assert not closing.is_alive() and time.monotonic() - started < 20


# --- how many workers -----------------------------------------------------------------

def test_by_default_a_worker_per_three_submissions_and_no_more_than_the_usable_cores(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert [batch.worker_count(None, n) for n in (1, 2, 5, 6, 9, 12, 100)] == [1, 1, 1, 2, 3, 4, 4]
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3})  # a Slurm task bound to one core, say
    assert batch.worker_count(None, 100) == 1


def test_an_explicit_jobs_is_the_worker_count_up_to_one_per_submission():
    assert [batch.worker_count(2, n) for n in (1, 2, 3, 100)] == [1, 2, 2, 2]
    assert batch.worker_count(0, 5) == 1
