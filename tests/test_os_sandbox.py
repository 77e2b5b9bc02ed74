"""The OS sandbox: what the kernel, not Python, keeps from a child.

A probe submission reports from inside the sandbox what it can see and do,
with the audit hook removed from the question: every attempt goes through
the raw system call (os.open with dir_fd, ctypes, _posixsubprocess) that
the hook never sees. Run as root, as CI runs it.
"""

from __future__ import annotations

import json
import os
import socket

import pytest

from autograder import grading_config
from autograder.child.confinement import WORKDIR
from autograder.protocol.limits import ChildLimits
from autograder.sandbox import os_isolation
from autograder.sandbox.parent import SandboxTransport
from autograder.sandbox.zygote_client import Zygote

PROBE = r'''
import _posixsubprocess, errno, json, os, resource, sys

def attempt(action):
    try:
        action()
        return "allowed"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))

def exit_status(*argv):
    """Run a program through _posixsubprocess, which the audit hook never sees: only the kernel decides."""
    pid = _posixsubprocess.fork_exec(list(argv), [os.fsencode(argv[0])], True, (), None, None, -1, -1, -1, -1, -1, -1,
                                     *os.pipe(), False, False, -1, None, None, None, -1, None, False)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

# The audit hook resolves a relative path against the working directory, the
# kernel against dir_fd: from d1/d2 the hook sees a file in the child's own
# directory, while the kernel goes from /usr/lib to "/".
START_CWD = os.getcwd()
os.makedirs("d1/d2")
os.chdir("d1/d2")
root_fd = os.open("/usr/lib", os.O_RDONLY | os.O_DIRECTORY)
ROOT = "../.."
facts = {
    "uid": os.getuid(), "gid": os.getgid(), "groups": os.getgroups(), "pid": os.getpid(),
    "cwd": START_CWD,
    "processes_visible": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()),
    "top_level": sorted(os.listdir("/")),
    "nproc": list(resource.getrlimit(resource.RLIMIT_NPROC)),
    # Relative to a descriptor: the audit hook cannot resolve these.
    "read_suite": attempt(lambda: os.open(ROOT + SUITE, os.O_RDONLY, dir_fd=root_fd)),
    "read_grading_toml": attempt(lambda: os.open(ROOT + GRADING_TOML, os.O_RDONLY, dir_fd=root_fd)),
    "write_python": attempt(lambda: os.open(ROOT + PYTHON_DIR + "/x.pth", os.O_WRONLY | os.O_CREAT, dir_fd=root_fd)),
    "back_home": os.chdir("/sandbox"),
    "write_workdir": attempt(lambda: os.close(os.open("own_file", os.O_WRONLY | os.O_CREAT,
                                                      dir_fd=os.open(".", os.O_RDONLY)))),
    "signal_parent_pid": attempt(lambda: os.pidfd_open(PARENT_PID)),
    "started_a_program": exit_status("/usr/bin/true"),
    "unshare_user": exit_status("/usr/bin/unshare", "--user", "/usr/bin/true"),
    "unshare_mount": exit_status("/usr/bin/unshare", "--mount", "/usr/bin/true"),
}
facts["connect_grader_port"] = exit_status("/usr/bin/bash", "-c", f"exec 3<>/dev/tcp/127.0.0.1/{LISTENING_PORT}")
print("FACTS" + json.dumps(facts), flush=True)
'''

LIMITS = ChildLimits(processes=64)


@pytest.fixture(scope="module")
def zygote():
    os_isolation.check_available()  # fails with what is missing: CI runs as root with bubblewrap
    started = Zygote(mode="os")
    yield started
    started.close()


@pytest.fixture(scope="module")
def facts(zygote, tmp_path_factory):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    python_dir = os.path.dirname(os.__file__)
    constants = (f"SUITE = {str(grading_config.REPO_ROOT / 'autograder' / 'suites' / 'test_02_where.py')!r}\n"
                 f"GRADING_TOML = {str(grading_config.REPO_ROOT / 'grading.toml')!r}\n"
                 f"PYTHON_DIR = {python_dir!r}\nPARENT_PID = {os.getpid()}\n"
                 f"LISTENING_PORT = {listener.getsockname()[1]}\n")
    path = tmp_path_factory.mktemp("probe") / "probe.py"
    path.write_text(constants + PROBE)
    reports = []
    for _ in range(2):
        transport = SandboxTransport(path, grading_config.load().limits, mode="os", child_limits=LIMITS, zygote=zygote)
        try:
            report = transport.start()
            assert not report.problems, report.notes
            reports.append(json.loads(transport.captured_output().split("FACTS", 1)[1]))
        finally:
            transport.close()
    listener.close()
    return reports


def test_child_runs_as_a_uid_of_its_own(facts):
    first, second = facts
    assert first["uid"] >= os_isolation.FIRST_UID and first["uid"] not in (0, os.getuid())
    assert first["gid"] == first["uid"] and first["groups"] == []


def test_child_is_pid_1_of_its_own_namespace_and_sees_only_its_processes(facts):
    assert facts[0]["pid"] == 1
    assert facts[0]["processes_visible"] == [1]


def test_child_sees_no_suite_no_grading_toml_and_writes_only_its_tmpfs(facts):
    probe = facts[0]
    assert probe["read_suite"] == "ENOENT" and probe["read_grading_toml"] == "ENOENT"
    assert probe["write_python"] in ("EROFS", "EACCES")
    assert probe["write_workdir"] == "allowed" and probe["cwd"] == WORKDIR
    assert "work" not in probe["top_level"] or "solutions" not in os.listdir("/work")


def test_child_cannot_signal_the_grader_or_reach_its_network(facts):
    probe = facts[0]
    assert probe["signal_parent_pid"] == "ESRCH", "the grader's pid does not exist in the child's namespace"
    assert probe["connect_grader_port"] != 0, "a port listening on the grader's loopback is out of reach"


def test_seccomp_refuses_new_namespaces_even_to_a_program_the_hook_never_saw(facts):
    probe = facts[0]
    assert probe["started_a_program"] == 0, "the probe's way past the audit hook works, so the kernel decided"
    assert probe["unshare_user"] != 0 and probe["unshare_mount"] != 0


def test_process_limit_holds_for_the_childs_uid(facts):
    assert facts[0]["nproc"] == [64, 64]


def test_uids_are_released_and_never_shared_by_live_children(tmp_path):
    pool = os_isolation.UidPool(locks=tmp_path / "locks")
    other = os_isolation.UidPool(locks=tmp_path / "locks")
    taken = [pool.take() for _ in range(3)] + [other.take() for _ in range(3)]
    assert len(set(taken)) == 6 and min(taken) >= os_isolation.FIRST_UID
    pool.release(taken[0])
    assert other.take() not in taken[1:]


def test_child_side_files_hold_no_suite_and_no_grading_config():
    files = {str(f.relative_to(grading_config.REPO_ROOT)) for f in os_isolation.child_side_files()}
    assert "autograder/child/main.py" in files and "autograder/child/executor.py" in files
    assert not [f for f in files if "suites" in f or f.endswith(("grading_config.py", "grading.py", "batch.py"))]
