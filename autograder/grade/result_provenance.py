"""What a result was computed from, so `--resume` reuses it only for exactly the same thing.

A result records the submission's content digest and the grading settings
(kit version, the suite's own source, the seed, the points, the limits, the
sandbox mode, the hint level). `--resume` reuses a finished result only when all of these
and the student are the same as now.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
from pathlib import Path

from autograder.catalog import messages
from autograder.check.runner import suite_path
from autograder.grading_config import GradingConfig

DIGEST_CAP_BYTES = 64 * 1024 * 1024


def content_digest(path: Path) -> str | None:
    """sha256 of the submission file's bytes, or None if it cannot be read (then nothing is reused)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                if handle.tell() > DIGEST_CAP_BYTES:
                    return None
    except OSError:
        return None
    return digest.hexdigest()


def grading_settings(config: GradingConfig, seed: int, assignment: str | None, sandbox: str) -> dict:
    """Everything besides the submission that decides its result."""
    suite = suite_path(assignment or "")  # the kit's suite, or the course's own (course_suites)
    try:
        suite_digest = hashlib.sha256(suite.read_bytes()).hexdigest()[:16] if assignment else None
    except OSError:
        suite_digest = None
    points = json.dumps(config.points.get(assignment or "", {}), sort_keys=True)
    return {
        "kit": _kit_version(),
        "suite": suite_digest,
        "seed": seed,
        "assignment": assignment,
        "points": hashlib.sha256(points.encode()).hexdigest()[:16],
        "limits": [config.limits.submission_seconds, config.limits.load_seconds, config.limits.call_seconds],
        "sandbox": sandbox,
        "hints": messages.hint_level_override() or config.hint_level("grade"),
    }


def changed_settings(recorded: object, current: dict) -> list[str]:
    """The names of the settings that differ (all of them if `recorded` is not a settings dict)."""
    if not isinstance(recorded, dict):
        return sorted(current)
    return [key for key in current if recorded.get(key) != current[key]]


def _kit_version() -> str:
    try:
        return importlib.metadata.version("autograder")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
