"""The trusted side of the zygote: starts it, asks it for children, ends them.

One zygote serves one grading worker, one request at a time. In the OS
sandbox (`mode="os"`) it is started inside bubblewrap (sandbox.os_isolation)
and each fork names the uid of the child. Whatever goes wrong with it (it
failed to start, died, refused to fork) raises ZygoteUnavailable; the sandbox
then starts a fresh zygote.

A batch starts one ZygoteTemplate and gives each grading worker a channel to a
clone of it (a fork, made a zygote of its own): the zygote's imports, a second
and a half of CPU, are paid once per batch instead of once per worker.
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
import time
from pathlib import Path

from autograder.child.zygote import MAX_MESSAGE_BYTES
from autograder.protocol.limits import ChildLimits
from autograder.sandbox import compile_speed

START_SECONDS = 120.0
# When a child's wall-clock time runs out with CPU time left, its threads are watched this long: if they
# spent at least STARVED_SHARE of it waiting, runnable, for a CPU, the machine was too busy; otherwise
# the child was not trying to run (it sleeps, or waits for input or for the host), which is the student's.
STARVATION_WINDOW_SECONDS = 0.5
STARVED_SHARE = 0.25
_ENV_ALLOWED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
# A zygote only forks, peeks and reaps: anything slower than this is a dead zygote.
ANSWER_MARGIN_SECONDS = 30.0


class ZygoteUnavailable(RuntimeError):
    """The zygote cannot provide a child; start a fresh zygote."""


def child_environment(home: Path | str) -> dict[str, str]:
    """The whole environment of a child: the allow-listed variables, its own HOME and TMPDIR, JAX on CPU
    with the flags of sandbox.compile_speed."""
    env = {k: os.environ[k] for k in _ENV_ALLOWED if k in os.environ}
    env.update(HOME=str(home), TMPDIR=str(home), JAX_PLATFORMS="cpu", XLA_FLAGS=compile_speed.flags())
    return env


class Zygote:
    """A started zygote process (see sandbox.zygote).

    Starting returns at once; the first fork waits until the zygote has done
    its imports, so the caller can do its own start-up meanwhile.
    """

    def __init__(self, python: str = sys.executable, start_seconds: float = START_SECONDS, *,
                 mode: str = "os", programs: Path | None = None, channel: socket.socket | None = None):
        """`mode`: "os" starts it inside bubblewrap, "process" as a plain process.
        `programs`: the batch's store of compiled programs, shown read-only in the OS sandbox.
        `channel`: a zygote another process started is at its other end (see adopt): none is started."""
        self.mode = mode
        self._lock = threading.Lock()
        self._start_seconds = start_seconds
        self.ready = False
        self.maxrss_kb = 0
        self._home: Path | None = None
        self._process: subprocess.Popen | None = None
        self.pid: int | None = None
        if channel is not None:
            self._channel = channel
            return
        from autograder.sandbox import os_isolation

        home = self._home = Path(tempfile.mkdtemp(prefix="autograder-zygote-"))
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # The zygote's environment is a child's, so that JAX and Python read
        # the same settings at import; one BLAS thread keeps it single-threaded
        # (OpenBLAS starts a pool at `import numpy`), which fork needs.
        env = dict(child_environment(home), OPENBLAS_NUM_THREADS="1")
        self._log = open(home / "zygote.log", "wb")
        # The kit this process imported, not whichever one `python -m` would find (os_isolation.module_command).
        command = os_isolation.module_command(python, "autograder.child.zygote", str(theirs.fileno()))
        if mode == "os":
            command = os_isolation.zygote_command([*command, "--confined"], programs)
        try:
            self._process = subprocess.Popen(
                command,
                pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                # In the caller's process group, so killing a grading worker's group ends its zygote too.
                stderr=self._log, cwd=home, env=env,
            )
        finally:
            theirs.close()
            self._log.close()
        self._channel = ours
        self.pid = self._process.pid

    @classmethod
    def adopt(cls, channel: socket.socket, *, mode: str, start_seconds: float = START_SECONDS) -> "Zygote":
        """The zygote at the other end of `channel`, started by another process (a clone of the batch's
        ZygoteTemplate): the same methods, and it ends when the channel closes."""
        return cls(start_seconds=start_seconds, mode=mode, channel=channel)

    @property
    def adopted(self) -> bool:
        """Whether another process started this zygote (see adopt)."""
        return self._process is None

    @property
    def alive(self) -> bool:
        if self._process is not None:
            return self._process.poll() is None
        return _still_open(self._channel)

    def wait_ready(self) -> None:
        """Wait until the zygote has done its imports (raises ZygoteUnavailable if it never does)."""
        with self._lock:
            if not self.ready:
                answer = self._receive(self._start_seconds)
                self.pid = self.pid or answer.get("pid")
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
        if self._process is None:
            _close_and_wait(self._channel, 5.0)
            return
        try:
            self._channel.close()
        except OSError:
            pass
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)

    def log_tail(self) -> str:
        if self._home is None:
            return ""
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


class ZygoteTemplate:
    """The batch's zygote that does the imports once; each worker's zygote is a clone of it.

    Started by the batch parent from its main thread (which lives as long as
    the batch: the zygote dies with that thread, bubblewrap's --die-with-parent),
    so every clone, and every child of a clone, dies with the batch too.
    """

    def __init__(self, *, mode: str, programs: Path | None = None):
        self._zygote = Zygote(mode=mode, programs=programs)
        self._lock = threading.Lock()

    def channel_for_worker(self) -> socket.socket | None:
        """A channel to a new clone, for a worker to adopt (Zygote.adopt); None if the template is gone.

        Returns at once, while the template may still be importing: the clone says ready on the
        channel when it exists, and a refused clone closes it (the worker then starts its own zygote).
        """
        worker_end, template_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with self._lock:
            try:
                self._discard_answers()  # the clones' pids: nothing the batch needs
                socket.send_fds(self._zygote._channel, [json.dumps({"op": "clone"}).encode()],
                                [template_end.fileno()])
            except (OSError, ValueError):  # ValueError: closed already
                worker_end.close()
                return None
            finally:
                template_end.close()
        return worker_end

    def close(self) -> None:
        """End the template and every clone it made (their workers have ended first)."""
        self._zygote.close()

    def _discard_answers(self) -> None:
        while select.select([self._zygote._channel], [], [], 0)[0]:
            if not self._zygote._channel.recv(MAX_MESSAGE_BYTES):
                raise OSError("the zygote template exited")


def _still_open(channel: socket.socket) -> bool:
    """Whether the other end of `channel` is still there (a message waiting to be read counts as there)."""
    try:
        return channel.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


def _close_and_wait(channel: socket.socket, seconds: float) -> None:
    """Close our side of an adopted zygote's channel and wait (up to `seconds`) until it has ended: it ends
    its children first, then exits, which closes its side."""
    try:
        channel.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + seconds
        while (wait := deadline - time.monotonic()) > 0 and select.select([channel], [], [], wait)[0]:
            if not channel.recv(MAX_MESSAGE_BYTES):
                break
    except OSError:
        pass
    finally:
        channel.close()


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

    def starved(self) -> bool:
        """Whether the child's threads are waiting, runnable, for a CPU (the machine is too busy for it),
        watched for STARVATION_WINDOW_SECONDS. False when the zygote cannot say."""
        before = self.run_queue_seconds()
        time.sleep(STARVATION_WINDOW_SECONDS)
        after = self.run_queue_seconds()
        if before is None or after is None:
            return False
        return after - before >= STARVED_SHARE * STARVATION_WINDOW_SECONDS

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
