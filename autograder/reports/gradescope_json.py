"""Writing and reading Gradescope-format results.json files, atomically."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from autograder.results import SubmissionResult


def write(result: SubmissionResult, path: Path) -> None:
    """Write `result` to `path`: a temporary file renamed over it, so readers never see half a file."""
    write_json_atomically(result.to_gradescope(), path)


def write_json_atomically(data: dict, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".results-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=2, ensure_ascii=False)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))
