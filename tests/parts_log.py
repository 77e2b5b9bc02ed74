"""`autograder check` that writes the parts it starts (student/check_processes.py) to $PARTS_LOG, one JSON list of
each part's exercises per line: the real command, with its real parts, for a test to see whether it split."""

from __future__ import annotations

import json
from pathlib import Path

VARIABLE = "PARTS_LOG"


def checking_script(cli_module: str) -> str:
    """Python code for `python -c` that runs `cli_module`'s main (`autograder.cli` for a clone's command,
    `autograder.student.cli` for the student package's) on its arguments, logging the parts it starts."""
    return f"""
import json, os, sys
from autograder.student import check_processes
started = check_processes.start

def start(arguments, parts):
    with open(os.environ["{VARIABLE}"], "a") as log:
        log.write(json.dumps([list(part.exercises) for part in parts]) + "\\n")
    return started(arguments, parts)

check_processes.start = start
from {cli_module} import main
sys.exit(main(sys.argv[1:]))
"""


def started_parts(log: Path) -> list[list[list[str]]]:
    """Each time the command started parts, their exercises."""
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
