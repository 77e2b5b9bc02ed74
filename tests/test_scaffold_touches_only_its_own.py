"""Adding an assignment touches no shared file: a scaffolded two-exercise assignment with bfloat16 functions, in git.

In a git copy of the repository's parts the scaffold reads, `autograder new-assignment` writes an
assignment of two functions, one taking bfloat16 and one returning it; its suite and its catalog (its
hints, the words its Korean keeps in English) are written by hand, `autograder i18n sync` adds their
entries to the assignment's own Korean catalog, and they are translated there by hand. `git status`
then shows the assignment's own files (its curriculum section, docs/curriculum/<name>.md, and its
Korean, suites/messages_<name>.ko.po, among them) and grading.toml, which only the scaffold wrote
(appended, never edited by hand), and no other: no harness, no common catalog or ko.po, no
curriculum.md, no test's list. And each function is graded through the wire as it is: bfloat16
arguments in, a bfloat16 result out, a wrong result named as such, its hint in Korean.
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
ROUNDING = "round_to_bfloat16"
COPIED = ("autograder", "grading.toml", "pyproject.toml", "solutions", "docs/curriculum.md", "tests/corpus")
# What the kit's own commands write besides the assignment's files: the scaffold appends its tables.
GENERATED = {"grading.toml"}
SUITE = f'''"""{NAME}: mixed precision: bfloat16 in and float32 out, and float32 rounded to bfloat16."""

import ml_dtypes
import numpy as np

from autograder.suites.api import expect_output, graded, sizes_for, text

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


@graded("{ROUNDING}", "correct")
def test_{ROUNDING}_correct(submission, rng, sizes):
    x = rng.standard_normal(int(sizes.integers(5, 40))).astype(np.float32)
    expect_output(submission, "{ROUNDING}", (x,), x.astype(BF16), check_dtype=True,
                  hint=text("{NAME}.{ROUNDING}.astype"))
'''
CATALOG = f'''"""{NAME}: this assignment's own sentences and hints (see catalog/assignment_catalogs.py)."""

ENGLISH: dict[str, str] = {{
    "{NAME}.{FUNCTION}.accumulate": "Multiply the bfloat16 arrays with a float32 accumulator: "
                                   "`jnp.matmul(a, b, preferred_element_type=jnp.float32)`.",
    "{NAME}.{ROUNDING}.astype": "Round with a cast to bfloat16: `x.astype(jnp.bfloat16)`.",
}}

IDEAS: dict[str, str] = {{
    "{NAME}.{FUNCTION}.accumulate": "Accumulate the products in float32, then keep the float32 result.",
    "{NAME}.{ROUNDING}.astype": "The result must have the dtype bfloat16, not float32.",
}}

APIS: dict[str, tuple[str, ...]] = {{"{NAME}.{FUNCTION}.accumulate": ("jax.numpy.matmul",),
                                     "{NAME}.{ROUNDING}.astype": ("jax.numpy.ndarray.astype",)}}

CHECK_NAMES: tuple[str, ...] = ()

KEPT_IN_ENGLISH: tuple[str, ...] = ("bfloat16",)
'''
# The Korean a translator writes into the entries `i18n sync` added (English -> Korean).
KOREAN = {
    "Multiply the bfloat16 arrays with a float32 accumulator: `jnp.matmul(a, b, preferred_element_type=jnp.float32)`.":
        "bfloat16 배열을 float32 누적으로 곱하세요: `jnp.matmul(a, b, preferred_element_type=jnp.float32)`.",
    "Round with a cast to bfloat16: `x.astype(jnp.bfloat16)`.":
        "bfloat16으로 변환해 반올림하세요: `x.astype(jnp.bfloat16)`.",
    "Accumulate the products in float32, then keep the float32 result.":
        "곱을 float32로 누적하고, float32 결과를 유지하세요.",
    "The result must have the dtype bfloat16, not float32.": "결과의 dtype은 float32가 아니라 bfloat16이어야 합니다.",
}
RIGHT = ("import jax.numpy as jnp\n\ndef mixed_precision_matmul(a, b):\n"
         "    return jnp.matmul(a, b, preferred_element_type=jnp.float32)\n\n"
         "def round_to_bfloat16(x):\n    return x.astype(jnp.bfloat16)\n")
WRONG_DTYPES = ("import jax.numpy as jnp\n\ndef mixed_precision_matmul(a, b):\n    return a @ b\n\n"
                "def round_to_bfloat16(x):\n    return x\n")
GRADE = """
import json, sys
from autograder import grading_config
from autograder.catalog import messages
from autograder.grade.pipeline import GradingOptions, grade_submission
config = grading_config.load(sys.argv[1])
with messages.speaking(sys.argv[4]):
    result = grade_submission(sys.argv[2], config, GradingOptions(seed=3, sandbox="inprocess", assignment=sys.argv[3]))
print(json.dumps({c.function: [c.passed, c.feedback] for c in result.checks}, ensure_ascii=False))
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
    return NAME in Path(path).parts or Path(path).name in (f"test_{NAME}.py", f"messages_{NAME}.py",
                                                           f"messages_{NAME}.ko.po", f"{NAME}.md")


def _translate(catalog: Path) -> None:
    """What a translator does: each entry `i18n sync` added gets its Korean (a PO editor would do the same)."""
    import polib

    entries = polib.pofile(str(catalog))
    assert sorted(entry.msgid for entry in entries if not entry.msgstr) == sorted(KOREAN), "sync added these"
    for entry in entries:
        entry.msgstr = KOREAN[entry.msgid]
    entries.save()


def test_a_bfloat16_assignment_is_added_in_its_own_files_and_graded_through_the_wire(tmp_path):
    root = tmp_path / "kit"
    _git_copy(root)
    python = [sys.executable, "-m", "autograder"]
    _run([*python, "new-assignment", NAME, "--functions", f"{FUNCTION}(a, b),{ROUNDING}", "--root", str(root)],
         root)
    scaffolded = {part: (root / part).read_bytes() for part in GENERATED}
    suites = root / "autograder" / "suites"
    (suites / f"test_{NAME}.py").write_text(SUITE, encoding="utf-8")
    (suites / f"messages_{NAME}.py").write_text(CATALOG, encoding="utf-8")
    _run([*python, "i18n", "sync", "--root", str(root)], root)
    _translate(suites / f"messages_{NAME}.ko.po")

    changed = _changed(root)
    assert {path for path in changed if not _own(path)} == GENERATED, sorted(changed)
    assert f"autograder/suites/messages_{NAME}.ko.po" in changed and f"docs/curriculum/{NAME}.md" in changed
    assert {part: (root / part).read_bytes() for part in GENERATED} == scaffolded, "written by the scaffold only"

    graded = {}
    for name, code, language in (("right", RIGHT, "en"), ("wrong dtypes", WRONG_DTYPES, "en"),
                                 ("wrong dtypes, Korean", WRONG_DTYPES, "ko")):
        submission = tmp_path / f"{name}.py"
        submission.write_text(code, encoding="utf-8")
        graded[name] = json.loads(_run([sys.executable, "-c", GRADE, str(root / "grading.toml"), str(submission),
                                        NAME, language], root).splitlines()[-1])
    assert all(passed for passed, _ in graded["right"].values()), graded["right"]
    passed, feedback = graded["wrong dtypes"][FUNCTION]
    assert not passed and "bfloat16" in feedback and "expected float32" in feedback, feedback
    passed, feedback = graded["wrong dtypes"][ROUNDING]
    assert not passed and "float32" in feedback and "expected bfloat16" in feedback, feedback
    assert not any("not numeric" in feedback for _, feedback in graded["wrong dtypes"].values())
    _, korean = graded["wrong dtypes, Korean"][ROUNDING]
    assert KOREAN["The result must have the dtype bfloat16, not float32."] in korean, korean
