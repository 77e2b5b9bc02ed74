"""Wall-clock limits for student code that runs in the grader's own process.

The sandbox child is killed from outside instead; this is for the in-process
backend (`autograder check`, notebook check cells), where an endless loop in
a student's function must end the check, not the session.
"""

from __future__ import annotations

import contextlib
import signal
import threading


class TimeLimitExceeded(BaseException):
    """Raised inside student code when its time is up.

    A BaseException so that a student's `except Exception:` cannot swallow it.
    """


@contextlib.contextmanager
def time_limit(seconds: float):
    """Interrupt the body after `seconds` of wall-clock time (main thread only).

    Elsewhere (signals need the main thread) the body runs unbounded.
    """
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        yield
        return

    def on_alarm(signum, frame):
        raise TimeLimitExceeded()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
