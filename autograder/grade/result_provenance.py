"""What a result was computed from, so `--resume` reuses it and `merge` joins it only for exactly the same thing.

A result records the submission's content digest and the grading settings:
a digest of the kit's own code (every module and message catalog of the
package: what runs while grading, whatever its version number says), the
whole parsed grading.toml, the versions of Python, JAX, jaxlib and numpy,
the suite's own source, the seed, the points, the limits, the sandbox mode,
the hint level. `--resume` reuses a finished result only when all of these
and the student are the same as now (else it grades again); `merge` joins
shards only when their settings are equal, naming the ones that differ.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import platform
from pathlib import Path

from autograder.check.runner import suite_path
from autograder.grading_config import GradingConfig
from autograder.load import regular_file

DIGEST_CAP_BYTES = 64 * 1024 * 1024
KIT_PACKAGE = Path(__file__).resolve().parent.parent  # the autograder package this process runs


def content_digest(path: Path) -> str | None:
    """sha256 of the submission file's bytes, or None if it cannot be read, is a link or not a regular file
    (then nothing is reused)."""
    digest = hashlib.sha256()
    try:
        with regular_file.open_regular(path, DIGEST_CAP_BYTES) as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                if handle.tell() > DIGEST_CAP_BYTES:
                    return None
    except OSError:
        return None
    return digest.hexdigest()


def grading_settings(config: GradingConfig, seed: int, assignment: str | None, sandbox: str,
                     hints: str | None) -> dict:
    """Everything besides the submission that decides its result (`hints`: the level the run asked for, if any)."""
    suite = suite_path(assignment or "")  # the kit's suite, or the course's own (course_suites)
    try:
        suite_digest = hashlib.sha256(suite.read_bytes()).hexdigest()[:16] if assignment else None
    except OSError:
        suite_digest = None
    points = json.dumps(config.points.get(assignment or "", {}), sort_keys=True)
    return {
        "kit": kit_digest(),
        "grading_toml": _config_digest(config),
        **runtime_versions(),
        "suite": suite_digest,
        "seed": seed,
        "assignment": assignment,
        "points": hashlib.sha256(points.encode()).hexdigest()[:16],
        "limits": [config.limits.submission_seconds, config.limits.load_seconds, config.limits.call_seconds],
        "sandbox": sandbox,
        "hints": hints or config.hint_level("grade"),
    }


def changed_settings(recorded: object, current: dict) -> list[str]:
    """The names of the settings that differ (all of them if `recorded` is not a settings dict)."""
    if not isinstance(recorded, dict):
        return sorted(current)
    return [key for key in current if recorded.get(key) != current[key]]


@functools.cache
def kit_digest(package: Path = KIT_PACKAGE) -> str:
    """sha256 of every module and message catalog of the kit's package, by path: any change to the code
    or the sentences that grade changes it (the package's version number does not follow edits)."""
    digest = hashlib.sha256()
    for path in sorted(p for pattern in ("*.py", "*.po") for p in package.rglob(pattern)):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()[:16]


def runtime_versions() -> dict[str, str]:
    """The versions of what computes a result besides the kit: Python, JAX, jaxlib and numpy."""
    versions = {"python": platform.python_version()}
    for package in ("jax", "jaxlib", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return versions


def _config_digest(config: GradingConfig) -> str:
    """sha256 of everything grading.toml said, as parsed (its [sandbox], [limits], [seeds], [feedback], ...)."""
    fields = {field.name: getattr(config, field.name) for field in dataclasses.fields(config) if field.name != "source"}
    text = json.dumps(fields, sort_keys=True, default=_plain)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _plain(value: object) -> object:
    """What json.dumps cannot write itself: a dataclass as its fields, anything else as its text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)
