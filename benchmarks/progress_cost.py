"""What `autograder grade`'s progress reporting costs per submission.

    .venv/bin/python benchmarks/progress_cost.py [--submissions 2000]

Reports `--submissions` finished submissions through batch_progress.Progress,
as the batch's worker threads do: once to a plain stream (CI logs: a line per
submission and periodic status lines) and once to a pseudo-terminal (the tqdm
bar with a line per submission above it). Prints one JSON line: microseconds
per finished submission for each, to compare with the grading time of a
submission (hundreds of milliseconds).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import pty
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from autograder.grade.batch_progress import Finished, Progress  # noqa: E402


def _seconds_per_submission(stream, submissions: int) -> float:
    progress = Progress(submissions, stream)
    outcome = Finished("student__02_where", "student", 12.0, 17.0, None, None, "")
    started = time.perf_counter()
    for _ in range(submissions):
        progress.finished(outcome)
    progress.close()
    return (time.perf_counter() - started) / submissions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--submissions", type=int, default=2000)
    args = parser.parse_args()
    plain = _seconds_per_submission(io.StringIO(), args.submissions)
    leader, follower = pty.openpty()
    drain = threading.Thread(target=lambda: _drain(leader), daemon=True)
    drain.start()
    with os.fdopen(follower, "w", buffering=1, closefd=True) as terminal:
        bar = _seconds_per_submission(terminal, args.submissions)
    print(json.dumps({"plain_microseconds": plain * 1e6, "terminal_microseconds": bar * 1e6,
                      "submissions": args.submissions}))
    return 0


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        pass


if __name__ == "__main__":
    raise SystemExit(main())
