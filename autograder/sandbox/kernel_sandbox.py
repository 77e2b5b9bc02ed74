"""nbgrader's student kernels in the OS sandbox, trusted side.

`nbgrader autograde` runs each submission's notebook in a Jupyter kernel.
ConfinedKernelManager, a jupyter_client AsyncKernelManager, starts that
kernel inside the same confinement as a grading child (sandbox.os_isolation's
bubblewrap view, child.confinement's steps, done by child.kernel_entry):

- its own uid from UidPool (never root, never the grader's), PID, network
  (loopback only), IPC and UTS namespaces, the seccomp filter, grading.toml's
  [sandbox] limits;
- a read-only view of the system and Python, none of the kit but its
  child-side modules, no gradebook, no other student's folder;
- as its only writable place a private, size-capped tmpfs holding a copy of
  its own submission folder (its cwd, HOME and TMPDIR); what it writes there
  vanishes with the kernel;
- an environment of the allow-listed variables only (child_environment).

nbclient talks to it as to any kernel: ZeroMQ over IPC sockets in a private
runtime directory (owned by the kernel's uid) bound into the sandbox, so
execution, timeouts, interrupts (sent as messages: a signal to bubblewrap
would not reach the kernel) and output capture stay nbclient's. When the
kernel ends or is killed, bubblewrap's PID 1 ends and every process the
notebook started goes with it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

import zmq
import zmq.asyncio
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.kernelspec import KernelSpec
from jupyter_client.manager import AsyncKernelManager
from traitlets import DottedObjectName, Type, Unicode, default

from autograder.child.confinement import WORKDIR
from autograder.child.kernel_entry import SUBMISSION_IN_VIEW
from autograder.protocol.limits import ChildLimits
from autograder.sandbox import os_isolation
from autograder.sandbox.zygote_client import child_environment

KERNEL_TMPFS_BYTES = 512 << 20  # the kernel's whole writable space, as a grading child's
# The largest message nbgrader's process accepts from a confined kernel, on any channel: ZeroMQ drops the
# connection (and reconnects) rather than take in more, so one message never costs nbgrader more than this
# (integrations/output_budget.py then bounds what all the messages of a notebook may add up to).
MAX_MESSAGE_BYTES = 16 << 20
# Not under /tmp: the sandbox shows /tmp read-only, so nothing can be bound below it.
RUNTIME_ROOT = Path("/run/autograder-kernels") if Path("/run").is_dir() else Path("/var/tmp/autograder-kernels")

_uids: os_isolation.UidPool | None = None
_checked: str | None = None  # "" once this machine was found able to run the sandbox, else why not


LINGER_MS = 1000  # how long a closing socket may still try to deliver what it queued


class KernelSandboxUnavailable(RuntimeError):
    """The student's kernel cannot be started in the OS sandbox here; the message says why and what to do."""


class ConfinedKernelClient(AsyncKernelClient):
    """nbclient's client of a confined kernel: no message larger than MAX_MESSAGE_BYTES is taken in."""

    @default("context")
    def _bounded_context(self) -> zmq.asyncio.Context:
        # The client's own, which jupyter_client destroys when the client stops or is collected
        # (`_created_context`). A message still queued for a kernel that is gone (a killed confined kernel
        # never reads its shutdown request) made terminating the context wait forever, in whichever
        # process collected it (nbgrader's, a test's): its sockets wait LINGER_MS at most.
        self._created_context = True
        context = zmq.asyncio.Context()
        context.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)  # defaults of every socket made from it
        context.setsockopt(zmq.LINGER, LINGER_MS)
        return context


class ConfinedKernelManager(AsyncKernelManager):
    """A kernel manager whose ipykernel runs confined in the OS sandbox, over IPC sockets."""

    client_class = DottedObjectName("autograder.sandbox.kernel_sandbox.ConfinedKernelClient")
    client_factory = Type(ConfinedKernelClient, klass=AsyncKernelClient)

    config_file = Unicode("", help="grading.toml whose [sandbox] limits apply (default: the course directory's, where "
                                            "nbgrader runs).").tag(config=True)

    _uid: int | None = None
    _runtime: Path | None = None
    _child_limits: ChildLimits | None = None

    @property
    def kernel_spec(self) -> KernelSpec:
        """Always the confined ipykernel, whatever kernel the notebook names (it is graded as Python)."""
        argv = os_isolation.module_command(sys.executable, "autograder.child.kernel_entry", str(self._uid),
                                           json.dumps(dataclasses.asdict(self._limits())), "--",
                                           "-f", "{connection_file}")
        return KernelSpec(argv=argv, display_name="Python 3 (confined)", language="python",
                          interrupt_mode="message", env={}, metadata={})

    async def _async_pre_start_kernel(self, **kw):
        _check_available()
        if self._uid is None:  # a restart keeps its uid and runtime directory
            self._uid = _uid_pool().take()
            self._runtime = _runtime_directory(self._uid)
        self.transport, self.ip = "ipc", str(self._runtime / "kernel-ipc")
        self.connection_file = str(self._runtime / "kernel.json")
        kernel_cmd, kw = await super()._async_pre_start_kernel(**kw)
        os.chown(self.connection_file, self._uid, self._uid)  # written by root, 0600: the kernel must read it
        return kernel_cmd, kw

    async def _async_launch_kernel(self, kernel_cmd: list[str], **kw) -> None:
        submission, runtime = kw.get("cwd") or os.getcwd(), self._runtime
        assert runtime is not None, "pre_start_kernel made it"
        # bubblewrap would make the runtime directory's parents 0700, closed to the kernel's uid.
        parents = [a for parent in reversed(runtime.parents) if parent != Path("/")
                   for a in ("--perms", "0755", "--dir", str(parent))]
        mounts = ("--ro-bind", str(submission), SUBMISSION_IN_VIEW, *parents,
                  "--bind", str(runtime), str(runtime),
                  "--size", str(KERNEL_TMPFS_BYTES), "--tmpfs", WORKDIR)
        command = os_isolation.zygote_command(kernel_cmd, None, extra_args=mounts)
        kw.update(env=child_environment(WORKDIR), cwd=str(runtime))
        await super()._async_launch_kernel(command, **kw)

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        if not restart:
            self._release()

    # AsyncKernelManager binds cleanup_resources to the base class's coroutine, which nbclient calls
    # for a kernel that already died: point it at the override, so the uid and directory go back too.
    cleanup_resources = _async_cleanup_resources  # type: ignore[assignment]

    def _release(self) -> None:
        if self._runtime is not None:
            shutil.rmtree(self._runtime, ignore_errors=True)
            self._runtime = None
        if self._uid is not None:
            _uid_pool().release(self._uid)
            self._uid = None

    def _limits(self) -> ChildLimits:
        if self._child_limits is None:  # read once: the kernel spec is asked for several times per start
            from autograder import grading_config

            config = grading_config.load(self.config_file or grading_config.DEFAULT_PATH)
            self._child_limits = ChildLimits.from_config(config.sandbox)
        return self._child_limits


def _uid_pool() -> os_isolation.UidPool:
    global _uids
    if _uids is None:
        _uids = os_isolation.UidPool()
    return _uids


def _runtime_directory(uid: int) -> Path:
    """A fresh directory for one kernel's connection file and sockets, owned by its uid, reachable by root alone."""
    RUNTIME_ROOT.mkdir(mode=0o711, parents=True, exist_ok=True)
    runtime = Path(tempfile.mkdtemp(prefix="kernel-", dir=RUNTIME_ROOT))
    os.chown(runtime, uid, uid)
    return runtime


def _check_available() -> None:
    """Raise KernelSandboxUnavailable, naming the cause and the fix, unless the OS sandbox runs here (once)."""
    global _checked
    if _checked is None:
        try:
            os_isolation.check_available(sys.executable)
            _checked = ""
        except os_isolation.IsolationUnavailable as error:
            _checked = str(error)
    if _checked:
        raise KernelSandboxUnavailable(
            f"the student's kernel cannot start in the OS sandbox: {_checked}. For nbgrader: fix this machine, or "
            "set c.GradeCheckCellsInSandbox.sandbox = \"process\" in nbgrader_config.py to run kernels unconfined "
            "(weaker isolation), then regrade with --force")
