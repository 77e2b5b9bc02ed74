"""CPU-time limits for student code that runs in the grader's own process.

The sandbox child is killed from outside instead (sandbox.parent reads its
CPU time); this is for the in-process backend (`autograder check`, notebook
check cells), where an endless loop in a student's function must end the
check, not the session. The limit counts the CPU time of the whole process
(ITIMER_PROF: every thread, so JAX's thread pools count; not subprocesses),
so a busy machine does not cut a correct function short. A wall-clock timer
at `busy_factor` times the limit is the backstop for code that does not use
its CPU time: if this process's threads spent a good part of that time
waiting, runnable, for a CPU (Linux's schedstat), the machine was too busy
(MachineTooBusy); otherwise the code slept or waited for input, and its time
is up (TimeLimitExceeded, "stalled"). Without /proc (macOS) it is the latter.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

# grading_config.DEFAULT_BUSY_FACTOR (child-side code does not import the trusted side's modules).
DEFAULT_BUSY_FACTOR = 10.0
# The share of the backstop's wall-clock time spent waiting for a CPU that means "too busy" (sandbox.parent's).
STARVED_SHARE = 0.25


class TimeLimitExceeded(BaseException):
    """Raised inside student code when its CPU time is up.

    A BaseException so that a student's `except Exception:` cannot swallow it.
    """


class MachineTooBusy(TimeLimitExceeded):
    """Raised inside student code when the wall-clock backstop ran out before its CPU time."""


@contextlib.contextmanager
def time_limit(seconds: float, busy_factor: float = DEFAULT_BUSY_FACTOR):
    """Interrupt the body after `seconds` of this process's CPU time (TimeLimitExceeded), or after
    `busy_factor` times that of wall-clock time (MachineTooBusy); main thread only.

    Elsewhere (signals need the main thread) the body runs unbounded.
    """
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_cpu_limit(signum, frame):
        raise TimeLimitExceeded()

    waited_before = _run_queue_seconds()

    def on_backstop(signum, frame):
        waited = _run_queue_seconds() - waited_before
        if waited >= STARVED_SHARE * seconds * busy_factor:
            raise MachineTooBusy()
        raise TimeLimitExceeded("stalled")

    previous = signal.signal(signal.SIGPROF, on_cpu_limit), signal.signal(signal.SIGALRM, on_backstop)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, seconds * busy_factor)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


def _run_queue_seconds() -> float:
    """Seconds this process's threads spent runnable, waiting for a CPU (0 where /proc has no schedstat)."""
    total = 0
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return 0.0
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/schedstat", "rb") as handle:
                total += int(handle.read().split()[1])
        except (OSError, IndexError, ValueError):
            continue
    return total / 1e9
