"""Writing and reading Gradescope-format results.json files in the out dir, atomically.

Each submission's file is `<out>/<name>/results.json`, written and read
through out_dir.OutDir: never through a symbolic link, never by opening
something that could block, and read back only if it is a regular file of
bounded size and nesting that holds the shape the grader writes.
"""

from __future__ import annotations

import json

from autograder.check.results import SubmissionResult
from autograder.load import bounded_json
from autograder.reports.out_dir import MAX_READ_BYTES, OutDir

FILENAME = "results.json"


def write(result: SubmissionResult, out: OutDir, name: str) -> None:
    """Write `result` to `<out>/<name>/results.json`: readers see the old file or the new one, never half a file."""
    write_data(result.to_gradescope(), out, name)


def write_data(data: dict, out: OutDir, name: str) -> None:
    out.write_file(name, FILENAME, json.dumps(data, indent=2, ensure_ascii=False).encode("utf-8"))


def read(out: OutDir, name: str) -> dict:
    """`<out>/<name>/results.json` as written by `write`.

    Raises out_dir.OutDirError if it is not a regular file of bounded size,
    ValueError if it does not hold a results.json object.
    """
    raw = out.read_file(name, FILENAME)
    where = f"{out.path}/{name}/{FILENAME}"
    try:
        # Bounded: the size by read_file, the nesting here, so a result never costs the reader a RecursionError.
        data = bounded_json.loads(raw, max_bytes=MAX_READ_BYTES)
    except ValueError as error:  # not UTF-8, not JSON, or beyond bounded_json's limits
        raise ValueError(f"{where} is not JSON ({error}); expected the grader's results. Grade this submission "
                         "again without --resume.") from None
    if not (isinstance(data, dict) and isinstance(data.get("extra_data", {}), dict)
            and isinstance(data.get("tests", []), list) and all(isinstance(t, dict) for t in data.get("tests", []))
            and isinstance(data.get("score", 0), (int, float))):
        raise ValueError(f"{where} does not have the shape of a results.json (an object with a numeric score, a "
                         "list of test objects and an extra_data object); grade this submission again without "
                         "--resume.")
    return data
