"""Which assignments `autograder release` can skip: a content hash of each one's inputs, as last released.

An assignment's release depends on its solution notebooks (every language),
its points in grading.toml, and the code that releases it (nbgrader_config.py,
nbgrader's version, and the functions of integrations/release.py that make
the released notebooks, RELEASED_BY: only those, so that a change to the
module's other work, the student package's data, does not make every fresh
clone release all ten assignments again). Their SHA-256 is
stored per assignment in one manifest beside the course's released notebooks,
`assignments/release-manifest.json`, outside every `assignments/<a>/` (which
must stay exactly nbgrader's output: tests/test_nbgrader_release.py). When
the hash is unchanged and the released notebooks exist, nbgrader need not
run again; `autograder release --force` runs it anyway.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import tempfile
from importlib import metadata
from pathlib import Path

from autograder import installed_kit
from autograder.grading_config import GradingConfig

MANIFEST = Path("assignments") / "release-manifest.json"
# The code whose change changes every release's output: files whole, and the parts of the release module
# that decide the released notebooks' bytes (its constants and functions by name).
RELEASE_CODE = (Path("nbgrader_config.py"),)
RELEASE_MODULE = Path("autograder/integrations/release.py")
RELEASED_BY = ("CHECK_PREFIX", "LANGUAGES", "solution_notebook", "check_cells", "sync_points", "generate",
               "_empty_gradebook", "nbgrader_environment", "release", "_release_translation", "korean_release")


def inputs_hash(config: GradingConfig, assignment: str, sources: list[Path], root: Path,
                kit: Path = installed_kit.PACKAGE.parent) -> str:
    """SHA-256 of what the release of `assignment` is made from (`sources`: its solution notebooks).

    `root` is the course directory (its nbgrader_config.py and solutions); `kit`
    the folder holding the `autograder` package whose release code runs.
    """
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        # Length-prefixed, so that no two different inputs hash alike by shifting bytes between parts.
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("points", json.dumps(config.points.get(assignment), sort_keys=True).encode())
    add("nbgrader", metadata.version("nbgrader").encode())
    add(str(RELEASE_MODULE), release_code(kit / RELEASE_MODULE))
    for path in [*RELEASE_CODE, *sources]:
        full = path if path.is_absolute() else root / path
        add(str(full.relative_to(root)), full.read_bytes() if full.is_file() else b"(missing)")
    return digest.hexdigest()


def release_code(path: Path) -> bytes:
    """The source of RELEASED_BY's definitions in the release module at `path`, in the module's order."""
    try:
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return b"(missing)"
    parts = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [target.id for target in targets if isinstance(target, ast.Name)]
        else:
            names = []
        if any(name in RELEASED_BY for name in names):
            parts.append(ast.get_source_segment(text, node) or "")
    return "\n\n".join(parts).encode("utf-8")


def read(root: Path) -> dict[str, str]:
    """The hashes of the course `root`'s last release, by assignment ({} when there is no manifest or it is
    unreadable)."""
    try:
        recorded = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in recorded.items()} if isinstance(recorded, dict) else {}


def record(assignment: str, hashed: str, root: Path) -> None:
    """Store `assignment`'s hash in the course `root`'s manifest (atomically: a release cut short leaves the
    old manifest)."""
    hashes = read(root)
    hashes[assignment] = hashed
    path = root / MANIFEST
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8", suffix=".tmp") as out:
        json.dump(dict(sorted(hashes.items())), out, indent=1)
        out.write("\n")
    os.replace(out.name, path)
