"""The trusted side of the zygote: starts it, asks it for children, ends them.

One zygote serves one grading worker, one request at a time. In the OS
sandbox (`mode="os"`) it is started inside bubblewrap (sandbox.os_isolation)
and each fork names the uid of the child. Whatever goes wrong with it (it
failed to start, died, refused to fork) raises ZygoteUnavailable; the sandbox
then starts a fresh zygote.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from autograder.child.zygote import MAX_MESSAGE_BYTES
from autograder.protocol.limits import ChildLimits

START_SECONDS = 120.0
_ENV_ALLOWED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
# A child compiles every program it runs, once, and runs it a few times on small inputs: LLVM's
# level 0 halves the compile time of JAX's heavier programs (a threefry sampler: 3.2 -> 1.4 s for
# eight shapes) and is a few per cent slower to run them. Measured on batches of eight solutions:
# 5 to 9 % less wall time for 03, 06, 07 and 09, no difference for 01. It changes code generation
# only (not XLA's graph passes): float32 results can differ from the default's in the last bits
# (contraction and vectorisation order; at most 4e-6 on a matmul, normal samples, gradients and a
# scan), all within compare.TOLERANCES' tightest float32 tolerance (rtol 1e-5, atol 1e-6).
CHILD_XLA_FLAGS = "--xla_backend_optimization_level=0"
# A zygote only forks, peeks and reaps: anything slower than this is a dead zygote.
ANSWER_MARGIN_SECONDS = 30.0


class ZygoteUnavailable(RuntimeError):
    """The zygote cannot provide a child; start a fresh zygote."""


def child_environment(home: Path | str) -> dict[str, str]:
    """The whole environment of a child: the allow-listed variables, its own HOME and TMPDIR, JAX on CPU
    with CHILD_XLA_FLAGS."""
    env = {k: os.environ[k] for k in _ENV_ALLOWED if k in os.environ}
    env.update(HOME=str(home), TMPDIR=str(home), JAX_PLATFORMS="cpu", XLA_FLAGS=CHILD_XLA_FLAGS)
    return env


class Zygote:
    """A started zygote process (see sandbox.zygote).

    Starting returns at once; the first fork waits until the zygote has done
    its imports, so the caller can do its own start-up meanwhile.
    """

    def __init__(self, python: str = sys.executable, start_seconds: float = START_SECONDS, *,
                 mode: str = "os", programs: Path | None = None):
        """`mode`: "os" starts it inside bubblewrap, "process" as a plain process.
        `programs`: the batch's store of compiled programs, shown read-only in the OS sandbox."""
        from autograder.sandbox import os_isolation

        self.mode = mode
        self._lock = threading.Lock()
        self._home = Path(tempfile.mkdtemp(prefix="autograder-zygote-"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # The zygote's environment is a child's, so that JAX and Python read
        # the same settings at import; one BLAS thread keeps it single-threaded
        # (OpenBLAS starts a pool at `import numpy`), which fork needs.
        env = dict(child_environment(self._home), OPENBLAS_NUM_THREADS="1")
        self._log = open(self._home / "zygote.log", "wb")
        # The kit this process imported, not whichever one `python -m` would find (os_isolation.module_command).
        command = os_isolation.module_command(python, "autograder.child.zygote", str(theirs.fileno()))
        if mode == "os":
            command = os_isolation.zygote_command([*command, "--confined"], programs)
        try:
            self._process = subprocess.Popen(
                command,
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                # In the caller's process group, so killing a grading worker's group ends its zygote too.
                stderr=self._log, cwd=self._home, env=env,
            )
        finally:
            theirs.close()
            self._log.close()
        self._channel = ours
        self._start_seconds = start_seconds
        self.ready = False
        self.pid = self._process.pid
        self.maxrss_kb = 0

    @property
    def alive(self) -> bool:
        return self._process.poll() is None

    def wait_ready(self) -> None:
        """Wait until the zygote has done its imports (raises ZygoteUnavailable if it never does)."""
        with self._lock:
            if not self.ready:
                self._receive(self._start_seconds)
                self.ready = True

    def fork(self, workdir: Path | str, env: dict, limits: ChildLimits, fds: tuple[int, int, int], *,
             uid: int | None = None, tmpfs_bytes: int = 0, role: str = "child",
             cpu_devices: int = 1) -> "ForkedChild":
        """A fresh child for `workdir`, reading requests from fds[0], answering on fds[1], printing to fds[2].

        In the OS sandbox `uid` is the child's own uid and `tmpfs_bytes` the size of its private tmpfs.
        `role`: "child" serves a submission (child.main); "runner" is the clean-room runner
        (cleanroom.runner), with `cpu_devices` CPU devices.
        """
        if role not in ("child", "runner"):
            raise ValueError(f"role must be 'child' or 'runner', got {role!r}")
        if (self.mode == "os") != (uid is not None):
            raise ValueError(f"a {self.mode}-mode zygote forks {'with' if self.mode == 'os' else 'without'} a uid")
        self.wait_ready()
        answer = self._ask({"op": "fork", "workdir": str(workdir), "env": env, "limits": dataclasses.asdict(limits),
                            "uid": uid, "tmpfs_bytes": tmpfs_bytes, "role": role, "cpu_devices": cpu_devices}, fds)
        if "pid" not in answer:
            raise ZygoteUnavailable(str(answer.get("refused") or answer.get("error") or answer))
        return ForkedChild(self, int(answer["pid"]))

    def close(self) -> None:
        """End the zygote; it kills every child it still has."""
        try:
            self._channel.close()
        except OSError:
            pass
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._home, ignore_errors=True)

    def log_tail(self) -> str:
        try:
            return (self._home / "zygote.log").read_text(errors="replace")[-2000:]
        except OSError:
            return ""

    # --- plumbing ----------------------------------------------------------

    def _ask(self, request: dict, fds: tuple[int, ...] = (), wait: float = 0.0) -> dict:
        with self._lock:
            try:
                socket.send_fds(self._channel, [json.dumps(request).encode()], list(fds))
            except OSError as error:
                raise ZygoteUnavailable(f"the zygote is gone ({error}); {self.log_tail()}") from None
            answer = self._receive(wait + ANSWER_MARGIN_SECONDS)
        if "error" in answer:
            raise ZygoteUnavailable(str(answer["error"]))
        return answer

    def _receive(self, seconds: float) -> dict:
        if not select.select([self._channel], [], [], seconds)[0]:
            raise ZygoteUnavailable(f"the zygote did not answer within {seconds:g} s; {self.log_tail()}")
        try:
            data = self._channel.recv(MAX_MESSAGE_BYTES)
        except OSError as error:
            raise ZygoteUnavailable(f"the zygote is gone ({error})") from None
        if not data:
            raise ZygoteUnavailable(f"the zygote exited; {self.log_tail()}")
        return json.loads(data)


class ForkedChild:
    """One child of the zygote, as the sandbox sees it (the same methods as a spawned child)."""

    def __init__(self, zygote: Zygote, pid: int):
        self._zygote = zygote
        self.pid = pid
        self.returncode: int | None = None
        self.maxrss_kb: int | None = None

    def exit_status(self, timeout: float = 0.0) -> int | None:
        """The exit code once the child has ended (negative: the signal that killed it), else None."""
        if self.returncode is not None:
            return self.returncode
        try:
            return self._zygote._ask({"op": "status", "pid": self.pid, "timeout": timeout}, wait=timeout)["returncode"]
        except ZygoteUnavailable:
            return -signal.SIGKILL  # the zygote died, and took its children with it

    def cpu_seconds(self) -> float | None:
        """CPU seconds the child and every process below it used so far (see zygote.tree_cpu_seconds).

        None once the zygote cannot say (it died, and took the child with it).
        """
        if self.returncode is not None:
            return None
        try:
            return float(self._zygote._ask({"op": "cpu", "pid": self.pid})["cpu_seconds"])
        except (ZygoteUnavailable, KeyError, TypeError, ValueError):
            return None

    def run_queue_seconds(self) -> float | None:
        """Seconds the child's threads (and those below it) waited, runnable, for a CPU; None if unknown."""
        if self.returncode is not None:
            return None
        try:
            return float(self._zygote._ask({"op": "run_queue", "pid": self.pid})["wait_seconds"])
        except (ZygoteUnavailable, KeyError, TypeError, ValueError):
            return None

    def kill(self) -> None:
        """Kill the child's process group and reap the child."""
        if self.returncode is not None:
            return
        try:
            answer = self._zygote._ask({"op": "reap", "pid": self.pid, "confined": self._zygote.mode == "os"})
        except ZygoteUnavailable:
            self.returncode = -signal.SIGKILL
            return
        self.returncode = int(answer["returncode"])
        self.maxrss_kb = int(answer.get("maxrss_kb") or 0)
        self._zygote.maxrss_kb = max(self._zygote.maxrss_kb, int(answer.get("zygote_maxrss_kb") or 0))
