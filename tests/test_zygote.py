"""A child forked from the zygote is a fresh, isolated process, in both sandbox modes.

A probe submission reports, from inside the sandbox, what its process looks
like before it touches JAX: session and process group, limits, working
directory, environment, open descriptors, the audit hook, threads and JAX
backends. Both modes give the same fresh process; the OS sandbox adds its
own uid, PID namespace and private working directory (tests/test_os_sandbox.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from autograder import grading_config
from autograder.child.confinement import WORKDIR
from autograder.protocol.limits import ChildLimits
from autograder.sandbox import compile_speed
from autograder.sandbox.parent import SandboxTransport
from autograder.sandbox.zygote_client import ForkedChild, Zygote, ZygoteTemplate

PROBE = r'''
import json, os, resource, sys, threading
import autograder.child.executor
KIT = os.path.dirname(os.path.dirname(autograder.child.executor.__file__))  # the autograder package
from jax._src import xla_bridge

facts = {
    "backend_started_before_student_code": xla_bridge.backends_are_initialized(),
    "threads": [threading.active_count(), len(os.listdir("/proc/self/task"))],
    "pid": os.getpid(),
    "own_session": os.getsid(0) == os.getpid() or os.getpid() == 1,
    "own_process_group": os.getpgrp() == os.getpid() or os.getpid() == 1,
    "limits": {name: list(resource.getrlimit(getattr(resource, name)))
               for name in ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_CORE")},
    "cwd": os.getcwd(),
    "env": dict(os.environ),
    "isolated": sys.flags.isolated,
    "fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
    "leftover_from_a_previous_child": hasattr(json, "autograder_probe"),
}
json.autograder_probe = True  # a later child must not see this
for name, attempt in [("fork", lambda: os.fork()),
                      ("read_suite", lambda: open(os.path.join(KIT, "suites", "test_02_where.py")))]:
    try:
        attempt()
        facts[name] = "allowed"
    except PermissionError:
        facts[name] = "refused"
import jax.numpy as jnp
facts["jax_works_after_fork"] = int(jnp.arange(4).sum())
print("FACTS" + json.dumps(facts), flush=True)

def answer(x):
    return x
'''

LIMITS = ChildLimits(memory_bytes=2900 << 20, cpu_seconds=123, file_bytes=7 << 20, open_files=200)


@pytest.fixture(scope="module", params=["os", "process", "os-clone"])
def zygote(request):
    """A zygote as a worker has it: its own (os, process), or a clone of the batch's template (os-clone)."""
    if request.param == "os-clone":
        template = ZygoteTemplate(mode="os")
        started = Zygote.adopt(template.channel_for_worker(), mode="os")
        yield started
        started.close()
        template.close()
        return
    started = Zygote(mode=request.param)
    yield started
    started.close()


@pytest.fixture
def probe(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(PROBE)
    return path


def _facts(path, zygote=None, mode=None) -> tuple[dict, SandboxTransport]:
    mode = mode or zygote.mode
    transport = SandboxTransport(path, grading_config.load().limits, mode=mode, child_limits=LIMITS, zygote=zygote)
    try:
        report = transport.start()
        assert not report.problems, report.notes
        printed = transport.captured_output()
        child = transport._process
        workdir = transport._workdir.resolve() if mode == "process" else WORKDIR
    finally:
        transport.close()
    facts = json.loads(printed.split("FACTS", 1)[1])
    return dict(facts, workdir=str(workdir), forked=isinstance(child, ForkedChild)), transport


def test_forked_child_is_fresh_and_isolated(zygote, probe):
    facts, _ = _facts(probe, zygote)
    assert facts["forked"], "the child should come from the zygote"
    assert facts["pid"] not in (os.getpid(), zygote.pid)
    if zygote.mode == "os":
        assert facts["pid"] == 1, "PID 1 of a namespace of its own"
    assert facts["own_session"] and facts["own_process_group"]
    assert facts["limits"] == {"RLIMIT_AS": [2900 << 20] * 2, "RLIMIT_CPU": [123] * 2, "RLIMIT_FSIZE": [7 << 20] * 2,
                               "RLIMIT_NOFILE": [200] * 2, "RLIMIT_CORE": [0, 0]}
    assert facts["cwd"] == facts["workdir"]
    assert facts["env"]["HOME"] == facts["env"]["TMPDIR"] == facts["workdir"]
    assert "OPENBLAS_NUM_THREADS" not in facts["env"], "the zygote's own settings stay in the zygote"
    assert facts["env"]["XLA_FLAGS"] == compile_speed.flags(), "children compile as sandbox.compile_speed says"
    assert facts["isolated"] == 1
    assert facts["fds"][:5] == [0, 1, 2, 3, 4] and len(facts["fds"]) <= 6  # + the descriptor listing /proc/self/fd
    assert facts["fork"] == "refused" and facts["read_suite"] == "refused", "audit hook installed after fork"
    assert not os.path.exists(facts["workdir"]) or zygote.mode == "os", "the parent removed the working directory"
    assert facts["backend_started_before_student_code"] is False
    assert facts["threads"] == [1, 1], "forked from a single-threaded zygote"
    assert facts["jax_works_after_fork"] == 6


def test_each_forked_child_starts_from_the_zygote_not_from_the_last_child(zygote, probe):
    first, _ = _facts(probe, zygote)
    second, _ = _facts(probe, zygote)
    assert zygote.mode == "os" or first["pid"] != second["pid"]
    assert not first["leftover_from_a_previous_child"] and not second["leftover_from_a_previous_child"]


def test_a_transport_without_a_zygote_starts_its_own_and_gets_the_same_child(zygote, probe):
    given, _ = _facts(probe, zygote)
    own, _ = _facts(probe, None, mode=zygote.mode)
    assert own["forked"]
    volatile = {"pid", "cwd", "workdir", "env", "forked", "threads", "fds"}
    assert {k: v for k, v in given.items() if k not in volatile} == {k: v for k, v in own.items() if k not in volatile}
    assert given["env"] == own["env"] or zygote.mode == "process"
    assert set(given["env"]) == set(own["env"])
    assert len(given["fds"]) == len(own["fds"]), (given["fds"], own["fds"])  # the pipes may be numbered differently


def test_a_child_that_outlives_its_deadline_is_killed_with_its_group(zygote, tmp_path):
    path = tmp_path / "endless.py"
    path.write_text("while True:\n    pass\n")
    config = grading_config.load()
    limits = type(config.limits)(submission_seconds=30, load_seconds=2, call_seconds=2)
    transport = SandboxTransport(path, limits, mode=zygote.mode, child_limits=LIMITS, zygote=zygote)
    try:
        report = transport.start()
        assert "s of CPU time" in report.notes[0]
        assert transport._process is None, "the child was killed at the deadline"
    finally:
        transport.close()


def test_a_child_that_exits_between_requests_is_replaced_without_asking_the_zygote(zygote, tmp_path, monkeypatch):
    import numpy as np

    from autograder.protocol import framing, requests, wire_format

    path = tmp_path / "leaves.py"
    # The child leaves once its main thread is back in read_message, waiting for the next request: after it
    # wrote this answer, whatever the machine's load. (A timer that fired 0.3 s after the call, as this test
    # once had, could fire before a slow child had written its answer, and the first request then failed.)
    path.write_text("import os, sys, threading, time\n"
                    "def _waiting_for_a_request(main):\n"
                    "    frame = sys._current_frames().get(main)\n"
                    "    while frame is not None and frame.f_code.co_name != 'read_message':\n"
                    "        frame = frame.f_back\n"
                    "    return frame is not None\n"
                    "def _leave_once_answered(main):\n"
                    "    while not _waiting_for_a_request(main):\n"
                    "        time.sleep(0.01)\n"
                    "    os._exit(0)\n"
                    "def answer(x):\n"
                    "    threading.Thread(target=_leave_once_answered, args=(threading.main_thread().ident,)).start()\n"
                    "    return x + 1\n")
    transport = SandboxTransport(path, grading_config.load().limits, mode=zygote.mode, child_limits=LIMITS,
                                 zygote=zygote)
    skeleton, arrays = wire_format.encode({"args": [np.float32(1)], "kwargs": {}},
                                          lambda leaf: np.asarray(leaf) if isinstance(leaf, np.generic) else None)
    asked = []
    real_ask = zygote._ask
    monkeypatch.setattr(zygote, "_ask", lambda request, *rest, **kw: asked.append(request["op"])
                        or real_ask(request, *rest, **kw))
    try:
        transport.start()
        first = transport._process
        assert transport.request(requests.Call("answer", skeleton), arrays)[1][0] == 2
        hang_backstop = time.monotonic() + 600  # the child leaves by itself; this only ends a test that would hang
        while not framing.writers_gone(transport._response_fd) and time.monotonic() < hang_backstop:
            time.sleep(0.05)
        assert transport.request(requests.Call("answer", skeleton), arrays)[1][0] == 2, "a fresh child answered"
        assert transport._process is not first
    finally:
        transport.close()
    assert "status" not in asked, f"the ended child was noticed from its pipe, not by asking the zygote: {asked}"


def test_zygote_refuses_to_fork_once_a_backend_has_started():
    script = ("import os; os.environ['OPENBLAS_NUM_THREADS'] = '1'\n"
              "from autograder.child import zygote\n"
              "zygote._preload()\n"
              "print(zygote.fork_hazard())\n"
              "import jax; jax.devices()\n"
              "print(zygote.fork_hazard())\n")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                               env=dict(os.environ, OPENBLAS_NUM_THREADS="1", JAX_PLATFORMS="cpu"))
    assert completed.returncode == 0, completed.stderr
    before, after = completed.stdout.strip().splitlines()[-2:]
    assert before == "None"
    assert "backend" in after



def _sleeping_child(zygote: Zygote, tmp_path) -> ForkedChild:
    """A child of `zygote` that waits for requests until the test ends (its request pipe stays open)."""
    read_end, write_end = os.pipe()
    answer_read, answer_write = os.pipe()
    output = os.open(tmp_path / "output", os.O_WRONLY | os.O_CREAT)
    try:
        child = zygote.fork(tmp_path, {"HOME": str(tmp_path)}, LIMITS, (read_end, answer_write, output))
    finally:
        for fd in (read_end, answer_write, output):
            os.close(fd)
    _kept_open.append(write_end)
    assert child.exit_status() is None, "the child is alive"
    return child


_kept_open: list[int] = []


def _ended(pid: int, seconds: float = 10.0) -> bool:
    """Whether `pid` has ended (gone, or a zombie nobody reaped yet) within `seconds`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.02)
    return False


def test_two_clones_of_one_template_are_two_zygotes(tmp_path):
    template = ZygoteTemplate(mode="process")
    first = Zygote.adopt(template.channel_for_worker(), mode="process")
    second = Zygote.adopt(template.channel_for_worker(), mode="process")
    try:
        first.wait_ready()
        second.wait_ready()
        assert first.pid != second.pid and first.alive and second.alive
        child = _sleeping_child(first, tmp_path)
        second.close()  # one worker's zygote ending ends nothing of the other's
        assert _ended(second.pid)
        assert first.alive and child.exit_status() is None
    finally:
        first.close()
        template.close()


def test_closing_a_clone_ends_it_and_its_children(tmp_path):
    template = ZygoteTemplate(mode="process")
    clone = Zygote.adopt(template.channel_for_worker(), mode="process")
    try:
        child = _sleeping_child(clone, tmp_path)
        clone.close()  # what a worker's end of the channel does when the worker exits or is killed
        assert _ended(clone.pid) and _ended(child.pid)
    finally:
        template.close()


def test_closing_the_template_ends_every_clone_and_its_children(tmp_path):
    template = ZygoteTemplate(mode="process")
    clone = Zygote.adopt(template.channel_for_worker(), mode="process")
    child = _sleeping_child(clone, tmp_path)
    template.close()  # the batch ending (after its workers, or when they could not end theirs)
    assert _ended(clone.pid) and _ended(child.pid)
    assert not clone.alive
    clone.close()


def test_a_worker_gets_no_clone_once_the_template_is_gone():
    template = ZygoteTemplate(mode="process")
    template.close()
    assert template.channel_for_worker() is None
