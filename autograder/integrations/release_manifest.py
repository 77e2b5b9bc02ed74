"""Which assignments `autograder release` can skip: a content hash of each one's inputs, as last released.

An assignment's release depends on its solution notebooks (every language),
its points in grading.toml, and the code that releases it (this package's
release code, nbgrader_config.py, nbgrader's version). Their SHA-256 is
stored per assignment in one manifest beside the released notebooks,
`assignments/release-manifest.json`, outside every `assignments/<a>/` (which
must stay exactly nbgrader's output: tests/test_nbgrader_release.py). When
the hash is unchanged and the released notebooks exist, nbgrader need not
run again; `autograder release --force` runs it anyway.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from importlib import metadata
from pathlib import Path

from autograder.grading_config import REPO_ROOT, GradingConfig

MANIFEST = Path("assignments") / "release-manifest.json"
# The code whose change changes every release's output.
RELEASE_CODE = (Path("autograder/integrations/release.py"), Path("autograder/integrations/release_manifest.py"),
                Path("nbgrader_config.py"))


def inputs_hash(config: GradingConfig, assignment: str, sources: list[Path], root: Path = REPO_ROOT) -> str:
    """SHA-256 of what the release of `assignment` is made from (`sources`: its solution notebooks)."""
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        # Length-prefixed, so that no two different inputs hash alike by shifting bytes between parts.
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("points", json.dumps(config.points.get(assignment), sort_keys=True).encode())
    add("nbgrader", metadata.version("nbgrader").encode())
    for path in [*RELEASE_CODE, *sources]:
        full = path if path.is_absolute() else root / path
        add(str(full.relative_to(root)), full.read_bytes() if full.is_file() else b"(missing)")
    return digest.hexdigest()


def read(root: Path = REPO_ROOT) -> dict[str, str]:
    """The hashes of the last release, by assignment ({} when there is no manifest or it is unreadable)."""
    try:
        recorded = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in recorded.items()} if isinstance(recorded, dict) else {}


def record(assignment: str, hashed: str, root: Path = REPO_ROOT) -> None:
    """Store `assignment`'s hash (atomically: a release cut short leaves the old manifest)."""
    hashes = read(root)
    hashes[assignment] = hashed
    path = root / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8", suffix=".tmp") as out:
        json.dump(dict(sorted(hashes.items())), out, indent=1)
        out.write("\n")
    os.replace(out.name, path)
