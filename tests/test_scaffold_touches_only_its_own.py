"""Adding an assignment touches no shared file: a scaffolded assignment with a bfloat16 function, in git.

In a git copy of the repository's parts the scaffold reads, `autograder new-assignment` writes an
assignment whose function takes and returns bfloat16; its suite, its catalog (with the name of its own
property and the words its Korean keeps in English) are filled in by hand, and `autograder i18n sync`
adds their translations' entries. `git status` then shows the assignment's own files and the ones
the kit's commands wrote (grading.toml and the curriculum, appended; ko.po, synced), and no other:
no harness, no common catalog, no test's list. And the function is graded through the wire as it is:
bfloat16 arguments in, a bfloat16 result out, a wrong result named as such.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

NAME = "11_numerics"
FUNCTION = "mixed_precision_matmul"
COPIED = ("autograder", "grading.toml", "pyproject.toml", "solutions", "docs/curriculum.md", "tests/corpus")
# What the kit's own commands write besides the assignment's files: the scaffold appends its tables and its
# curriculum section, `i18n sync` adds the new sentences' entries.
GENERATED = {"grading.toml", "docs/curriculum.md", "autograder/catalog/locale/ko.po"}
SUITE = f'''"""{NAME}: mixed precision, bfloat16 in and float32 out."""

import ml_dtypes
import numpy as np

from autograder.suites.api import expect_jittable, expect_output, graded, sizes_for, text

BF16 = ml_dtypes.bfloat16


def _inputs(rng, seed):
    m, k, n = (int(size) for size in sizes_for(seed, "{FUNCTION}").integers(2, 9, 3))
    return rng.standard_normal((m, k)).astype(BF16), rng.standard_normal((k, n)).astype(BF16)


def _product(a, b):
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


@graded("{FUNCTION}", "correct")
def test_{FUNCTION}_correct(submission, rng, seed):
    a, b = _inputs(rng, seed)
    expect_output(submission, "{FUNCTION}", (a, b), _product(a, b), check_dtype=True, rtol=1e-3, atol=1e-4,
                  hint=text("{NAME}.{FUNCTION}.accumulate"))


@graded("{FUNCTION}", "accumulates in float32")
def test_{FUNCTION}_jittable(submission, rng, seed):
    a, b = _inputs(rng, seed)
    expect_jittable(submission, "{FUNCTION}", (a, b), _product(a, b), rtol=1e-3, atol=1e-4)
'''
CATALOG = f'''"""{NAME}: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {{
    "{NAME}.{FUNCTION}.accumulate": "Multiply the bfloat16 arrays with a float32 accumulator: "
                                   "`jnp.matmul(a, b, preferred_element_type=jnp.float32)`.",
}}

IDEAS: dict[str, str] = {{
    "{NAME}.{FUNCTION}.accumulate": "Accumulate the products in float32, then keep the float32 result.",
}}

APIS: dict[str, tuple[str, ...]] = {{"{NAME}.{FUNCTION}.accumulate": ("jax.numpy.matmul",)}}

CHECK_NAMES: tuple[str, ...] = ("accumulates in float32",)

KEPT_IN_ENGLISH: tuple[str, ...] = ("bfloat16",)
'''
RIGHT = "import jax.numpy as jnp\n\ndef mixed_precision_matmul(a, b):\n" \
        "    return jnp.matmul(a, b, preferred_element_type=jnp.float32)\n"
ROUNDED = "import jax.numpy as jnp\n\ndef mixed_precision_matmul(a, b):\n    return a @ b\n"
GRADE = """
import json, sys
from autograder import grading_config
from autograder.grade.pipeline import GradingOptions, grade_submission
config = grading_config.load(sys.argv[1])
result = grade_submission(sys.argv[2], config, GradingOptions(seed=3, sandbox="inprocess", assignment=sys.argv[3]))
print(json.dumps({c.prop: [c.passed, c.feedback] for c in result.checks}))
"""


def _run(args: list[str], cwd: Path, **environment: str) -> str:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(cwd), **environment})
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _git_copy(root: Path) -> None:
    for part in COPIED:
        source, target = REPO / part, root / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the kit as it was"]):
        _run([*git, *command], root)


def _changed(root: Path) -> set[str]:
    listed = _run(["git", "status", "--porcelain", "--untracked-files=all"], root)
    return {line[3:] for line in listed.splitlines()}


def _own(path: str) -> bool:
    return NAME in Path(path).parts or Path(path).name in (f"test_{NAME}.py", f"messages_{NAME}.py")


def test_a_bfloat16_assignment_is_added_in_its_own_files_and_graded_through_the_wire(tmp_path):
    root = tmp_path / "kit"
    _git_copy(root)
    python = [sys.executable, "-m", "autograder"]
    _run([*python, "new-assignment", NAME, "--functions", f"{FUNCTION}(a, b)", "--root", str(root)], root)
    (root / "autograder" / "suites" / f"test_{NAME}.py").write_text(SUITE, encoding="utf-8")
    (root / "autograder" / "suites" / f"messages_{NAME}.py").write_text(CATALOG, encoding="utf-8")
    with (root / "grading.toml").open("a", encoding="utf-8") as points:
        points.write('"accumulates in float32" = 1\n')  # under the scaffold's [assignments.11_numerics....]
    _run([*python, "i18n", "sync", "--root", str(root)], root)

    changed = _changed(root)
    assert changed and {path for path in changed if not _own(path)} <= GENERATED, sorted(changed)

    graded = {}
    for name, code in (("right", RIGHT), ("rounded", ROUNDED)):
        submission = tmp_path / f"{name}.py"
        submission.write_text(code, encoding="utf-8")
        graded[name] = json.loads(_run([sys.executable, "-c", GRADE, str(root / "grading.toml"), str(submission),
                                        NAME], root).splitlines()[-1])
    assert all(passed for passed, _ in graded["right"].values()), graded["right"]
    passed, feedback = graded["rounded"]["correct"]
    assert not passed and "bfloat16" in feedback and "expected float32" in feedback, feedback
    assert "not numeric" not in feedback
