"""The sandboxed grader cannot be fooled or crashed.

One `autograder grade` batch holds every attack in tests/attacks plus the
solution notebooks. The batch finishes, the solutions keep full marks, and
every attack earns exactly what its honest code earns: zero for the checks
it attacks. Where an attack aims at something outside its child, that target
is checked too: the out dir is the same a few seconds after the batch as when
it ended (nothing outlived its child to rewrite it), no attack process is
left, no secret of the grader (an environment variable, the suite,
grading.toml, the solutions, a root-only file) is anywhere in the out dir,
nothing was planted where Python looks at start-up, and a second batch
graded afterwards still gives the solutions full marks.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import site
import stat
import subprocess
import sys
import sysconfig
import time
import tomllib
from pathlib import Path

import nbformat
import pytest
from conftest import REPO, course_config

from autograder.reports.result_json import test_status as status_of

ATTACKS = REPO / "tests" / "attacks"
CASES = tomllib.loads((ATTACKS / "cases.toml").read_text())["attack"]
SOLUTIONS = ["01_immutable_updates", "02_where"]
SECRET_VARIABLE = "AUTOGRADER_TEST_SECRET"
SETTLE_SECONDS = 5  # how long a process that outlived its child would have to rewrite the out dir
# Names of processes the attacks start to outlive their child (see outlive_*.py, kill_later_children.py).
PROCESS_MARKERS = (b"ATTACK-OUTLIVE-MARKER", b"atk-outlive", b"atk-killer")
# What site_packages_pth.py tries to plant where Python looks at start-up.
STARTUP_FILES = ("zz_attack_site.pth", "sitecustomize.py", "usercustomize.py")
STARTUP_PAYLOAD = b"attack_site_file_ran"


def _edited_check_cells_notebook(path):
    """The 02 solution with selu left unimplemented and every check cell rewritten to claim success."""
    notebook = nbformat.read(REPO / "solutions" / "02_where" / "02_where.ipynb", as_version=4)
    for cell in notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if meta.get("grade_id") == "selu_solution":
            cell.source = "def selu(x, alpha=1.67, lmbda=1.05):\n    raise NotImplementedError()\n"
        if meta.get("grade"):
            cell.metadata.pop("nbgrader")
            cell.source = "print('All checks passed. Total: 17 / 17')\n17"
    nbformat.write(notebook, path)


def _deleted_check_cells_notebook(path):
    notebook = nbformat.read(REPO / "solutions" / "02_where" / "02_where.ipynb", as_version=4)
    notebook.cells = [c for c in notebook.cells if not c.get("metadata", {}).get("nbgrader", {}).get("grade")]
    nbformat.write(notebook, path)


def _grade(config, batch, out, secret):
    """`autograder grade` with a secret in the grader's environment (what read_by_dir_fd.py looks for)."""
    return subprocess.run([sys.executable, "-m", "autograder", "--config", str(config), "grade", str(batch),
                           "--out", str(out), "--seed", "11"],
                          cwd=REPO, capture_output=True, text=True, timeout=1800,
                          env=dict(os.environ, **{SECRET_VARIABLE: secret}))


def _startup_directories() -> set[Path]:
    """Where the grader's Python reads .pth files, sitecustomize and usercustomize at start-up."""
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    paths = {*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["purelib"],
             sysconfig.get_paths()["platlib"], sysconfig.get_paths()["stdlib"]}
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        paths |= {os.path.join(prefix, "lib", version), os.path.join(prefix, "lib", version, "site-packages")}
    return {Path(p) for p in paths}


def _planted_startup_files() -> list[Path]:
    return [directory / name for directory in _startup_directories() for name in STARTUP_FILES
            if (directory / name).is_file() and STARTUP_PAYLOAD in (directory / name).read_bytes()]


def _out_dir_contents(out: Path) -> dict[str, bytes | str]:
    """Every entry of the out dir: a regular file's bytes, or what else it is."""
    contents = {}
    for path in sorted(out.rglob("*")):
        mode = path.lstat().st_mode
        if stat.S_ISREG(mode):
            contents[str(path.relative_to(out))] = path.read_bytes()
        elif not stat.S_ISDIR(mode):
            contents[str(path.relative_to(out))] = f"not a regular file (mode {oct(mode)})"
    return contents


def _attack_processes() -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            names = (entry / "cmdline").read_bytes() + b" " + (entry / "comm").read_bytes()
        except OSError:
            continue
        if any(marker in names for marker in PROCESS_MARKERS):
            found.append(f"{entry.name}: {names[-200:]!r}")
    return found


@pytest.fixture(scope="module")
def attacked_batch(tmp_path_factory):
    assert not _planted_startup_files(), "left over from an earlier run: remove them"
    text = (REPO / "grading.toml").read_text()
    # Short limits: the endless loops and sleeps cost this much each (CPU or idle time), far above honest code.
    text = text.replace("load_seconds = 60", "load_seconds = 8").replace("call_seconds = 30", "call_seconds = 4")
    config = course_config(tmp_path_factory.mktemp("config"), text)
    batch = tmp_path_factory.mktemp("attack_batch")
    for case in CASES:
        shutil.copy(ATTACKS / case["file"], batch / f"attack_{case['file'].removesuffix('.py')}_02_where.py")
    for assignment in SOLUTIONS:
        shutil.copy(REPO / "solutions" / assignment / f"{assignment}.ipynb", batch / f"solution_{assignment}.ipynb")
    _edited_check_cells_notebook(batch / "attack_edited_check_cells_02_where.ipynb")
    _deleted_check_cells_notebook(batch / "attack_deleted_check_cells_02_where.ipynb")
    out = tmp_path_factory.mktemp("attack_out")
    secret = f"never-in-results-{secrets.token_hex(16)}"
    completed = _grade(config, batch, out, secret)
    at_the_end = _out_dir_contents(out)
    time.sleep(SETTLE_SECONDS)
    yield completed, out, {"secret": secret, "at_the_end": at_the_end, "config": config}
    for planted in _planted_startup_files():  # only if the sandbox failed: leave the machine as it was
        planted.unlink()


@pytest.fixture(scope="module")
def later_batch(attacked_batch, tmp_path_factory):
    """The solutions graded again, after the attacks, by a fresh grader (which would run anything they planted)."""
    batch = tmp_path_factory.mktemp("later_batch")
    for assignment in SOLUTIONS:
        shutil.copy(REPO / "solutions" / assignment / f"{assignment}.ipynb", batch / f"solution_{assignment}.ipynb")
    out = tmp_path_factory.mktemp("later_out")
    return _grade(attacked_batch[2]["config"], batch, out, "unused"), out


def _result(out, name):
    return json.loads((out / name / "results.json").read_text())


def test_the_batch_finishes_normally(attacked_batch):
    completed, out, _ = attacked_batch
    assert completed.returncode == 0, completed.stderr[-2000:]
    assert len(list(out.glob("*/results.json"))) == len(CASES) + len(SOLUTIONS) + 2


@pytest.mark.parametrize("assignment", SOLUTIONS)
def test_solutions_in_the_same_batch_keep_full_marks(attacked_batch, assignment):
    result = _result(attacked_batch[1], f"solution_{assignment}")
    failed = [t for t in result["tests"] if t["status"] != "passed"]
    assert result["score"] == result["extra_data"]["max_score"] > 0, failed


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_attack_earns_only_what_its_honest_code_earns(attacked_batch, case):
    result = _result(attacked_batch[1], f"attack_{case['file'].removesuffix('.py')}_02_where")
    failed = {t["name"]: t["output"] for t in result["tests"] if t["status"] != "passed"}
    assert result["score"] == case["earns"], (
        f"{case['why']}: scored {result['score']}, failed: {json.dumps(failed, indent=1)[:3000]}")
    not_checked = {t["name"] for t in result["tests"] if status_of(t) == "not_checked"}
    for name in case.get("zero", []):
        assert name in failed, f"{case['why']}: {name} should score 0"
        if name not in not_checked:  # a property check after wrong values says so instead (issue 23.2)
            assert case.get("feedback", "") in failed[name], f"{name}: {failed[name]}"
    assert not case.get("zero") or set(case["zero"]) - not_checked, "the mistake itself is named somewhere"
    if case.get("feedback") and not case.get("zero"):
        assert any(case["feedback"] in text for text in [*failed.values(), result["output"]]), result["output"]
    if case.get("notes"):
        assert case["notes"] in result["output"], result["output"]


def test_edited_check_cells_are_ignored(attacked_batch):
    result = _result(attacked_batch[1], "attack_edited_check_cells_02_where")
    assert result["score"] == 14
    assert {t["name"] for t in result["tests"] if t["status"] != "passed"} == {"selu: correct", "selu: jittable"}


def test_deleted_check_cells_do_not_matter(attacked_batch):
    assert _result(attacked_batch[1], "attack_deleted_check_cells_02_where")["score"] == 17


def test_nothing_changes_the_out_dir_after_the_batch(attacked_batch):
    """outlive_*.py: processes meant to outlive their child and rewrite the results once the worker is done."""
    _, out, facts = attacked_batch
    now = _out_dir_contents(out)
    assert now.keys() == facts["at_the_end"].keys()
    assert [name for name in now if now[name] != facts["at_the_end"][name]] == []


def test_no_attack_process_outlives_the_batch(attacked_batch):
    assert _attack_processes() == []


def test_grades_csv_and_results_are_regular_files_that_agree(attacked_batch):
    """plant_in_out_dir.py: a FIFO at grades.csv.tmp, results.json replaced by a directory or a symlink."""
    _, out, _ = attacked_batch
    results = sorted(out.glob("*/results.json"))
    for path in [out / "grades.csv", *results]:
        assert stat.S_ISREG(path.lstat().st_mode), path
    with open(out / "grades.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    scores = {row["submission"]: float(row["score"]) for row in rows}
    assert scores == {path.parent.name: float(json.loads(path.read_text())["score"]) for path in results}
    assert [row for row in rows if not 0 <= float(row["score"]) <= float(row["max_score"])] == []


def _secrets_of_the_grader(secret: str) -> dict[str, str]:
    suite = (REPO / "autograder" / "suites" / "test_02_where.py").read_text()
    notebook = nbformat.read(REPO / "solutions" / "02_where" / "02_where.ipynb", as_version=4)
    solution = next(c.source for c in notebook.cells
                    if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == "sum_of_positive_numbers_solution")
    found = {"environment": secret, "suite": suite.split('"""')[1].strip(),
             "grading.toml": (REPO / "grading.toml").read_text().splitlines()[0],
             "solution": solution.split('"""')[1].strip().splitlines()[0]}
    try:
        shadow = Path("/etc/shadow").read_text()
    except OSError:
        shadow = ""
    found.update({f"/etc/shadow line {i}": line for i, line in enumerate(shadow.splitlines()) if len(line) >= 8})
    return found


def test_no_secret_of_the_grader_reaches_the_out_dir(attacked_batch):
    """read_by_dir_fd.py (environment, suite, grading.toml, solutions); plant_in_out_dir.py and symlink_outputs.py
    (a root-only file behind a symlink)."""
    completed, out, facts = attacked_batch
    everything = b"\n".join(v if isinstance(v, bytes) else v.encode() for v in _out_dir_contents(out).values())
    everything += (completed.stdout + completed.stderr).encode()
    leaked = [what for what, text in _secrets_of_the_grader(facts["secret"]).items() if text.encode() in everything]
    assert leaked == []


def test_nothing_is_planted_where_python_starts(attacked_batch):
    """site_packages_pth.py: a .pth file, sitecustomize.py or usercustomize.py for the next run to execute."""
    assert _planted_startup_files() == []


@pytest.mark.parametrize("assignment", SOLUTIONS)
def test_solutions_graded_after_the_attacks_keep_full_marks(later_batch, assignment):
    """overwrite_programs.py, site_packages_pth.py, kill_later_children.py: a fresh batch afterwards."""
    completed, out = later_batch
    assert completed.returncode == 0, completed.stderr[-2000:]
    result = _result(out, f"solution_{assignment}")
    failed = [t for t in result["tests"] if t["status"] != "passed"]
    assert result["score"] == result["extra_data"]["max_score"] > 0, failed
