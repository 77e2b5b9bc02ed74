"""What `autograder grade` tells the instructor while it works, and when it is done.

On a terminal: a progress bar (tqdm) with counts, rate and ETA, and a line
per finished submission above it. Without one (CI logs): the same line per
submission, and a plain status line every STATUS_EVERY_SECONDS. At the end:
one summary line (reports.class_report then prints the class's scores,
common failures and the submissions that need a look).
"""

from __future__ import annotations

import dataclasses
import os
import statistics
import sys
import threading
import time
from typing import TextIO

from autograder.catalog import messages
from autograder.reports.result_json import mapping

STATUS_EVERY_SECONDS = 30.0
NEEDS_A_LOOK = ("unreadable", "timeout", "exited", "sandbox_failed", "child_failed", "grader_error", "no_notebook")


@dataclasses.dataclass(frozen=True)
class Finished:
    """One submission's outcome, as the batch parent read it back."""
    name: str
    student: str
    score: float
    max_score: float
    problem: str | None
    mismatch: str | None
    first_note: str


def finished_from(name: str, student: str, results_json: dict) -> Finished:
    extra = mapping(results_json.get("extra_data"))
    notes = str(results_json.get("output", "")).strip().splitlines()
    problem = extra.get("problem")
    mismatch = extra.get("assignment_mismatch")
    return Finished(name, student, _number(results_json.get("score")), _number(extra.get("max_score")),
                    problem if isinstance(problem, str) else None, mismatch if isinstance(mismatch, str) else None,
                    notes[0][:300] if notes else "")


def _number(value) -> float:
    return float(value) if isinstance(value, (int, float)) else 0.0


class Progress:
    """Thread-safe: the batch's worker threads report each finished submission."""

    def __init__(self, total: int, stream: TextIO | None = None):
        self._stream = stream or sys.stderr
        self._lock = threading.Lock()
        self._total, self._done = total, 0
        self._started = self._last_status = time.monotonic()
        self._bar = None
        if total and self._stream.isatty():
            from tqdm import tqdm

            columns, rows = _size(self._stream)
            self._bar = tqdm(total=total, unit="submission", file=self._stream, ncols=columns, nrows=rows,
                             desc=messages.text("batch.progress_label"))

    def finished(self, outcome: Finished) -> None:
        line = _line(outcome)
        with self._lock:
            self._done += 1
            if self._bar is not None:
                self._bar.write(line, file=self._stream)
                self._bar.update(1)
                return
            print(line, file=self._stream, flush=True)
            now = time.monotonic()
            if now - self._last_status >= STATUS_EVERY_SECONDS and self._done < self._total:
                self._last_status = now
                print(self._status(now), file=self._stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()

    def _status(self, now: float) -> str:
        elapsed = now - self._started
        rate = self._done / elapsed if elapsed > 0 else 0.0
        remaining = (self._total - self._done) / rate if rate > 0 else float("nan")
        return messages.text("batch.status", done=self._done, total=self._total, rate=rate * 60,
                             remaining=remaining)


def _size(stream: TextIO) -> tuple[int, int]:
    """The terminal's columns and rows; one that reports none (a bare pty) gets 100 x 24, not a hidden bar."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError):
        return 100, 24
    return size.columns or 100, size.lines or 24


def _line(outcome: Finished) -> str:
    line = messages.text("batch.finished_line", name=outcome.name, score=outcome.score, max_score=outcome.max_score)
    if outcome.problem in NEEDS_A_LOOK and outcome.first_note:
        line += "  " + outcome.first_note
    if outcome.mismatch:
        line += "\n  " + outcome.mismatch
    return line


def summary(outcomes: list[Finished], *, seed: int, out: str) -> str:
    """The closing line: how many, with which seed, where, and how it went.

    The class report lists what needs a look.
    """
    if not outcomes:
        return messages.text("batch.nothing_graded")
    percents = [100 * o.score / o.max_score if o.max_score else 0.0 for o in outcomes]
    return messages.text("batch.summary", count=len(outcomes), seed=seed, out=out,
                         mean=statistics.fmean(percents), median=statistics.median(percents),
                         full=sum(1 for o in outcomes if o.max_score and o.score == o.max_score))
