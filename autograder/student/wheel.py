"""Building the student package's wheel (release side; not in the student package).

The wheel holds the package `autograder` with only what checking needs on
a student's machine: the in-process `Submission` and its Executor, the wire
format, the comparisons and hints, the message catalog, the result table,
and `autograder.student` with the recorded checks as data. It holds no
suite, solution, example, corpus, runner, pytest plugin, batch, sandbox or
nbgrader code. Its `autograder.notebook` is the student package's check
(so released check cells run unchanged), and its `autograder` command is
`autograder check`.

The wheel is written directly (PEP 427: a zip with a .dist-info folder), so
building it needs no build backend and gives the same bytes for the same
inputs.
"""

from __future__ import annotations

import ast
import base64
import hashlib
import io
import zipfile
from pathlib import Path

from autograder.student import jax_support

DISTRIBUTION = "jax-exercises-student"
SUMMARY = "Checks for the JAX exercise notebooks, for students: expected outputs on public inputs, no answer key."
REQUIRES_PYTHON = ">=3.11"
# The JAX range is student/jax_support.py's (tested release by release: tests/test_jax_versions.py); pip
# is given only its lower bound, so installing the package never downgrades a runtime's newer JAX: the
# first check says what to run instead. absl-py: jax.export imports it before JAX 0.6. filelock: JAX's
# compilation cache, which `autograder check` keeps between runs, is off without it. flatbuffers:
# jax.export serializes the programs the jit checks run.
REQUIRES = (f"jax>={jax_support.version_text(jax_support.LOWEST)}",
            f"jaxlib>={jax_support.version_text(jax_support.LOWEST)}", "numpy>=1.26", "absl-py>=1.0",
            "filelock>=3.0", "flatbuffers>=23.5", "nbformat>=5.1", "polib>=1.1", "ipython>=8.0")

# Modules of the kit the student package uses as they are (paths under autograder/).
KIT_MODULES = (
    "__init__.py", "child/__init__.py", "protocol/__init__.py", "load/__init__.py", "check/__init__.py",
    "sandbox/__init__.py", "catalog/__init__.py", "catalog/assignment_catalogs.py",
    "catalog/messages.py", "catalog/message_ref.py", "catalog/hint_ideas.py",
    "child/executor.py", "child/harnesses.py", "child/harness_types.py", "child/cell_execution.py",
    "child/stub_lines.py",
    "child/time_limits.py", "child/mlir_context.py", "child/wider_floats.py",
    "child/trace_counting.py", "child/jaxpr_walk.py", "child/jittability.py", "child/older_jax_exports.py",
    "protocol/wire_format.py", "protocol/errors.py", "protocol/sentences.py", "protocol/requests.py",
    "load/submission_source.py",
    "load/assignment_names.py", "load/example_cells.py",
    "load/bounded_json.py", "load/regular_file.py",
    "protocol/program_facts.py", "protocol/program_failures.py", "protocol/placements.py",
    "cleanroom/__init__.py", "cleanroom/programs.py", "cleanroom/module_walk.py",
    "cleanroom/allowed_operations.py",
    "check/submission.py", "check/results.py", "check/said_once.py", "check/compare.py",
    "check/jax_error_hints.py", "check/jax_api_versions.py", "check/exported_program.py",
    "check/expectations.py", "check/typed_key.py", "check/failure.py", "check/calls_shown.py",
    "check/gated_checks.py", "check/value_relations.py", "check/rounding_relation.py", "check/cause_first.py",
    "check/retrace_explanations.py", "check/placement_checks.py", "check/device_runs.py", "check/function_claims.py",
    "sandbox/inprocess.py", "sandbox/compilation_cache.py", "sandbox/compile_speed.py",
    "reports/__init__.py", "reports/terminal_table.py", "reports/display_width.py", "reports/check_cell.py",
    "student/__init__.py", "student/jax_support.py", "student/strings.py", "student/recorded.py", "student/replay.py",
    "student/replayed_mistakes.py", "student/learned_sentences.py", "student/device_checks.py",
    "student/check_processes.py", "student/exercise_halves.py", "student/checking.py",
    "student/notebook.py", "student/cli.py",
    "warm_start/__init__.py", "warm_start/identity.py", "warm_start/client.py", "warm_start/server.py",
    "warm_start/wire.py", "warm_start/ending.py",
)
# Generated modules: the released notebooks import autograder.notebook; `python -m autograder` runs the command.
GENERATED_MODULES = {
    "notebook.py": '"""Check cells: `check("histogram", globals())` (the student package\'s checks)."""\n\n'
                   "from autograder.student.notebook import check\n\n__all__ = [\"check\"]\n",
    "__main__.py": "from autograder.student.cli import run\n\nrun()\n",
}
ENTRY_POINTS = "[console_scripts]\nautograder = autograder.student.cli:run\n"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


class WheelError(RuntimeError):
    """The student package cannot be built as asked."""


def wheel_name(version: str) -> str:
    return f"{DISTRIBUTION.replace('-', '_')}-{version}-py3-none-any.whl"


def build(out_dir: Path, version: str, data_dir: Path, package_root: Path, assignments: list[str]) -> Path:
    """Write the wheel into `out_dir` and return its path.

    `package_root` is the kit's `autograder/` folder; `data_dir` holds the
    recorded checks (index.json, <assignment>.json and .npz); `assignments`
    are the names whose exercise-specific translations are left out of the
    PO catalogs (the suites' advice, which quotes reference code; its English
    is beside the suites, which the package does not ship). Each language's
    catalog is the kit's common one with the assignments' check names added
    from their own PO files (suites/messages_<assignment>.<language>.po).
    """
    files: dict[str, bytes] = {}
    for relative in KIT_MODULES:
        source = package_root / relative
        if not source.is_file():
            raise WheelError(f"{source} is missing")
        files[f"autograder/{relative}"] = source.read_bytes()
    for path in sorted((package_root / "child").glob("harnesses_*.py")):  # each assignment's, found by name
        files[f"autograder/child/{path.name}"] = path.read_bytes()
    for relative, text in GENERATED_MODULES.items():
        files[f"autograder/{relative}"] = text.encode()
    locale = package_root / "catalog" / "locale"
    if locale.is_dir():
        for path in sorted(locale.iterdir()):
            if path.suffix == ".po":
                own = sorted((package_root / "suites").glob(f"messages_*.{path.stem}.po"))
                files[f"autograder/catalog/locale/{path.name}"] = po_for_students(path, own, assignments).encode()
            elif path.name == "README.md":
                files[f"autograder/catalog/locale/{path.name}"] = path.read_bytes()
    for path in sorted(data_dir.iterdir()):
        if path.suffix in (".json", ".npz"):
            files[f"autograder/student/data/{path.name}"] = path.read_bytes()
    check_imports(files)
    dist_info = f"{DISTRIBUTION.replace('-', '_')}-{version}.dist-info"
    files[f"{dist_info}/METADATA"] = _metadata(version).encode()
    files[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: autograder-release\nRoot-Is-Purelib: true\n"
                                   b"Tag: py3-none-any\n")
    files[f"{dist_info}/entry_points.txt"] = ENTRY_POINTS.encode()
    files[f"{dist_info}/top_level.txt"] = b"autograder\n"
    record = "".join(f"{name},sha256={_digest(content)},{len(content)}\n" for name, content in sorted(files.items()))
    record += f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / wheel_name(version)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in sorted(files.items(), key=lambda item: (item[0].endswith("/RECORD"), item[0])):
            info = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            info.external_attr = 0o644 << 16
            archive.writestr(info, content, compress_type=zipfile.ZIP_DEFLATED)
    target.write_bytes(buffer.getvalue())
    return target


def _metadata(version: str) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {DISTRIBUTION}", f"Version: {version}", f"Summary: {SUMMARY}",
             f"Requires-Python: {REQUIRES_PYTHON}", *(f"Requires-Dist: {r}" for r in REQUIRES)]
    return "\n".join(lines) + "\n"


def _digest(content: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()


def _is_exercise_key(key: object, assignments: list[str]) -> bool:
    return isinstance(key, str) and key.split(".", 1)[0] in assignments


def po_for_students(path: Path, own: list[Path], assignments: list[str]) -> str:
    """The PO catalog at `path` with the entries of the assignments' own catalogs `own` added, less every entry
    whose msgctxt is `<assignment>.*`: what remains of theirs is their check names."""
    import polib

    catalog = polib.pofile(str(path))
    for other in own:
        catalog.extend(entry for entry in polib.pofile(str(other)) if not entry.obsolete)
    for entry in [e for e in catalog if _is_exercise_key(e.msgctxt, assignments)]:
        catalog.remove(entry)
    for entry in [e for e in catalog.obsolete_entries() if _is_exercise_key(e.msgctxt, assignments)]:
        catalog.remove(entry)
    return str(catalog) + "\n"


def check_imports(files: dict[str, bytes]) -> None:
    """Every `autograder...` module a shipped module imports is shipped too (else the wheel fails at a student's)."""
    missing = set()
    for name, content in files.items():
        if not name.endswith(".py"):
            continue
        for node in ast.walk(ast.parse(content.decode("utf-8"), name)):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            for module in modules:
                if module.split(".")[0] != "autograder":
                    continue
                path = module.replace(".", "/")
                is_name_in_module = module.rsplit(".", 1)[0].replace(".", "/") + ".py" in files
                if f"{path}.py" not in files and f"{path}/__init__.py" not in files and not is_name_in_module:
                    missing.add(f"{module} (imported by {name})")
    if missing:
        raise WheelError("the student package would import modules it does not hold: " + ", ".join(sorted(missing)))
