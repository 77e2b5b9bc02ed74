"""The student package on every JAX it supports: the `jax_matrix` tier (`make test-jax-versions`, run by .ci/run).

student/jax_support.py declares the range and the releases tested (TESTED: the first of the range and the
newest patch release of each minor one). For each, a virtual environment holds that jax and jaxlib with the
student package's other dependencies (kept between runs under $AUTOGRADER_JAX_MATRIX_CACHE, default
~/.cache/jax-exercise-kit, with the jax and jaxlib wheels it downloaded), and the student wheel built from
this checkout. Checked there as `autograder check` checks (tests/jax_versions/driver.py):

- every assignment's solution notebook gets full marks, and its released stub 0;
- a sample of the corpus (mistakes and correct alternatives of every assignment) gets the same verdict on
  every check and the same first hint per function as on the pinned JAX (pyproject.toml's).

Outside the range, and without JAX, the first check says so in one sentence with the line to run.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from corpus_cases import corrects, mistakes
from filelock import FileLock

from autograder import grading_config
from autograder.catalog import messages
from autograder.check import jax_api_versions
from autograder.student import jax_support, wheel

ROOT = Path(__file__).resolve().parent.parent
DRIVER = ROOT / "tests" / "jax_versions" / "driver.py"
CACHE = Path(os.environ.get("AUTOGRADER_JAX_MATRIX_CACHE", Path.home() / ".cache" / "jax-exercise-kit"))
PINNED = next(r.split("==")[1] for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
              if r.startswith("jax=="))
UNSUPPORTED = "0.4.38"  # the last release before the range
MISTAKES_PER_ASSIGNMENT = 3
TREE_MAP = "mistake/07_vmap_pytrees/sgd_update_removed_tree_map"
POSITIONAL_SHARDING = "mistake/10_parallel/shard_rows_positional_sharding"
# Where a release of the range answers otherwise than the pinned JAX, because JAX itself does: each is asserted
# to still differ (so that a change shows), and the student is told where the package can tell.
KNOWN_DIFFERENCES = {
    ("0.5.0", TREE_MAP): "jax.tree_map is still in JAX before 0.6: the checks pass, and a note says grading's JAX "
                         "lacks it (student.api_missing_in_grading)",
    ("0.5.3", TREE_MAP): "as for 0.5.0",
    ("0.9.2", "correct/10_parallel/alternative"): "JAX 0.9 itself raises on this code called outside jit (the "
                                                  "gradient of a pmean under shard_map over explicit mesh axes)",
    ("0.5.0", "correct/10_parallel/alternative"): "JAX 0.5 has only the experimental shard_map, whose replication "
                                                  "check rejects this code's out_specs (JAX's own error)",
    ("0.5.3", "correct/10_parallel/alternative"): "as for 0.5.0",
    ("0.5.0", POSITIONAL_SHARDING): "jax.sharding.PositionalSharding is still in JAX before 0.7: the code runs and "
                                    "its values pass; grading's JAX lacks it, so there it fails from the start",
    ("0.5.3", POSITIONAL_SHARDING): "as for 0.5.0",
    ("0.6.2", POSITIONAL_SHARDING): "as for 0.5.0",
}


def test_the_pinned_jax_is_tested_and_in_the_range():
    assert PINNED in jax_support.TESTED
    assert jax_support.LOWEST <= jax_api_versions.parse_version(PINNED) < jax_support.BEYOND
    assert jax_support.TESTED[0] == jax_support.version_text(jax_support.LOWEST)


# --- environments --------------------------------------------------------------------

def _pip(*arguments: str) -> None:
    completed = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *arguments],
                               capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr[-3000:]


def _student_requirements() -> list[str]:
    """The student wheel's dependencies besides jax and jaxlib, as its metadata declares them."""
    return [r for r in wheel.REQUIRES if not r.startswith(("jax>=", "jaxlib>="))]


def _venv(name: str, jax_version: str | None) -> Path:
    """A cached venv holding `jax_version` (None: no JAX at all) and the student package's other dependencies."""
    requirements = _student_requirements() + ([f"jax=={jax_version}", f"jaxlib=={jax_version}"] if jax_version else [])
    folder = CACHE / "venvs" / name
    stamp = folder / "requirements.json"
    CACHE.mkdir(parents=True, exist_ok=True)
    with FileLock(str(CACHE / f"{name}.lock")):
        if stamp.is_file() and json.loads(stamp.read_text()) == requirements:
            return folder / "bin" / "python"
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run([shutil.which("python3.11") or sys.executable, "-m", "venv", "--without-pip", str(folder)],
                       check=True)
        wheels = CACHE / "wheels"  # jaxlib is 80-100 MB a release: downloaded once, kept with the venvs
        if jax_version:
            _pip("download", "--quiet", "--no-deps", "--only-binary=:all:", "-d", str(wheels),
                 f"jax=={jax_version}", f"jaxlib=={jax_version}")
        _pip("--python", str(folder / "bin" / "python"), "install", "--quiet", "--no-compile",
             "--find-links", str(wheels), *requirements)
        stamp.write_text(json.dumps(requirements))
    return folder / "bin" / "python"


def _shared(tmp_path_factory) -> Path:
    """A folder every xdist worker of this run shares, and no other run (conftest.py's kernel_jax_cache)."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "jax-matrix"
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def student_wheel(tmp_path_factory) -> Path:
    """The student distribution's wheel, built once per run for every worker."""
    from autograder.integrations import release

    shared = _shared(tmp_path_factory)
    with FileLock(str(shared / "dist.lock")):
        found = sorted((shared / "dist").glob("*.whl"))
        if not found:
            assert release.student_dist(grading_config.load(), shared / "dist") == 0
            found = sorted((shared / "dist").glob("*.whl"))
    return found[0]


def _installed(python: Path, student_wheel: Path) -> Path:
    """`python`'s venv with this run's student wheel (installed once, under the venv's lock: tests share venvs)."""
    folder = python.parent.parent
    stamp = folder / "student-wheel.sha256"
    digest = hashlib.sha256(student_wheel.read_bytes()).hexdigest()
    with FileLock(str(CACHE / f"{folder.name}.lock")):
        if not stamp.is_file() or stamp.read_text() != digest:
            _pip("--python", str(python), "install", "--quiet", "--no-deps", "--force-reinstall", "--no-compile",
                 str(student_wheel))
            stamp.write_text(digest)
    return python


def _environment(python: Path, caches: Path) -> dict:
    """A student's environment: none of the kit's, JAX's or Python's settings, the venv first on PATH; caches
    of this run's own (nothing an earlier run compiled); a crash prints where it happened."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("AUTOGRADER_", "PYTHON", "JUPYTER", "VIRTUAL_ENV", "JAX_", "XLA_"))}
    env["PATH"] = os.pathsep.join([str(python.parent), env.get("PATH", "")])
    env["XDG_CACHE_HOME"] = str(caches)
    env["PYTHONFAULTHANDLER"] = "1"
    env["AUTOGRADER_WARM_CHECKS"] = "off"  # no server outlives the test (test_warm_checks.py tests them)
    return env


# --- the cases ------------------------------------------------------------------------

def _assignments() -> list[str]:
    return grading_config.load().assignments


def _sample(cases: list, per_assignment: int) -> list:
    """`per_assignment` cases of each assignment, spread over its sorted list (first, middle, last...)."""
    chosen = []
    for assignment in _assignments():
        own = sorted((c for c in cases if c.assignment == assignment), key=lambda c: c.id)
        if len(own) <= per_assignment:
            chosen += own
            continue
        step = (len(own) - 1) / max(per_assignment - 1, 1)
        chosen += [own[round(i * step)] for i in range(per_assignment)]
    return chosen


def _cases() -> list[dict]:
    cases = []
    for assignment in _assignments():
        cases.append({"id": f"solution/{assignment}", "assignment": assignment,
                      "path": str(ROOT / "solutions" / assignment / f"{assignment}.ipynb")})
        cases.append({"id": f"stub/{assignment}", "assignment": assignment,
                      "path": str(ROOT / "assignments" / assignment / f"{assignment}.ipynb")})
    for case in _sample(mistakes(), MISTAKES_PER_ASSIGNMENT):
        cases.append({"id": f"mistake/{case.id}", "assignment": case.assignment, "path": str(case.file),
                      "functions": [case.function]})
    for case in _sample(corrects(), 1):
        cases.append({"id": f"correct/{case.id}", "assignment": case.assignment, "path": str(case.file),
                      "functions": list(case.functions)})
    return cases


def _results(version: str, student_wheel: Path, tmp_path_factory) -> dict:
    """The driver's results for every case with `version`, computed once per run (shared by the workers)."""
    shared = _shared(tmp_path_factory)
    saved = shared / f"results-{version}.json"
    with FileLock(str(shared / f"results-{version}.lock")):
        if not saved.is_file():
            python = _installed(_venv(version, version), student_wheel)
            cases_file = shared / "cases.json"
            cases_file.write_text(json.dumps(_cases()))
            completed = subprocess.run([str(python), str(DRIVER), str(cases_file)], capture_output=True, text=True,
                                       env=_environment(python, shared / f"cache-{version}"), cwd=shared,
                                       timeout=1800)
            assert completed.returncode == 0, completed.stderr[-4000:]
            saved.write_text(completed.stdout.strip().splitlines()[-1])
    found = json.loads(saved.read_text())
    assert "refused" not in found, found
    assert found["jax"] == version
    return found["results"]


def _hint(feedback: str) -> str:
    """The feedback's hint sentence (after "Hint: "), numbers and spacing left out; "" without one."""
    prefix = messages.text("call.hint", hint="").strip()
    with_hint = feedback.split(prefix, 1)
    if len(with_hint) == 1:
        return ""
    return re.sub(r"\s+", " ", re.sub(r"[-+]?\d[\d.e+-]*", "#", with_hint[1])).strip()


def _first_hints(result: dict) -> dict[str, str]:
    """Per function, the hint of its first failed check (what a student reads first)."""
    hints: dict[str, str] = {}
    for function, _, status, feedback in result["checks"]:
        if status != "passed" and function not in hints:
            hints[function] = _hint(feedback)
    return hints


def _verdicts(result: dict) -> list[tuple[str, str, str]]:
    return [(function, prop, status) for function, prop, status, _ in result["checks"]]


# --- the tests ------------------------------------------------------------------------

@pytest.mark.parametrize("version", jax_support.TESTED)
def test_solutions_get_full_marks_and_stubs_zero(version, student_wheel, tmp_path_factory):
    results = _results(version, student_wheel, tmp_path_factory)
    wrong = {}
    for assignment in _assignments():
        solution, stub = results[f"solution/{assignment}"], results[f"stub/{assignment}"]
        if solution["score"] != solution["max_score"] or solution["max_score"] == 0:
            wrong[f"solution/{assignment}"] = [c for c in solution["checks"] if c[2] != "passed"]
        if stub["score"] != 0:
            wrong[f"stub/{assignment}"] = [c for c in stub["checks"] if c[2] == "passed"]
    assert not wrong, f"JAX {version}: {json.dumps(wrong, indent=1)[:6000]}"


@pytest.mark.parametrize("version", [v for v in jax_support.TESTED if v != PINNED])
def test_corpus_sample_as_on_the_pinned_jax(version, student_wheel, tmp_path_factory):
    results = _results(version, student_wheel, tmp_path_factory)
    pinned = _results(PINNED, student_wheel, tmp_path_factory)
    sample = [case_id for case_id in pinned if case_id.startswith(("mistake/", "correct/"))]
    assert len(sample) >= 3 * len(_assignments())
    differ = {}
    for case_id in sample:
        if (version, case_id) in KNOWN_DIFFERENCES:
            assert _verdicts(results[case_id]) != _verdicts(pinned[case_id]), f"{case_id} now agrees: drop it"
            continue
        if _verdicts(results[case_id]) != _verdicts(pinned[case_id]):
            differ[case_id] = {"verdicts": _verdicts(results[case_id]), "pinned": _verdicts(pinned[case_id])}
        elif _first_hints(results[case_id]) != _first_hints(pinned[case_id]):
            differ[case_id] = {"first hints": _first_hints(results[case_id]), "pinned": _first_hints(pinned[case_id])}
    assert not differ, f"JAX {version} against {PINNED}: {json.dumps(differ, indent=1, ensure_ascii=False)[:6000]}"


@pytest.mark.parametrize("version", sorted({v for v, case_id in KNOWN_DIFFERENCES if case_id == TREE_MAP}))
def test_an_api_grading_lacks_is_named_where_the_students_jax_has_it(version, student_wheel, tmp_path_factory):
    result = _results(version, student_wheel, tmp_path_factory)[TREE_MAP]
    assert any("`jax.tree_map`" in note and PINNED in note and "jax.tree.map" in note for note in result["notes"]), \
        result["notes"]


def test_the_sample_holds_real_mistakes_on_the_pinned_jax(student_wheel, tmp_path_factory):
    """The comparison above means something: on the pinned JAX every sampled mistake loses points of its
    function, and every sampled correct alternative keeps them all."""
    pinned = _results(PINNED, student_wheel, tmp_path_factory)
    lost = {case_id: result["score"] < result["max_score"] for case_id, result in pinned.items()
            if case_id.startswith(("mistake/", "correct/"))}
    assert all(lost[case_id] for case_id in lost if case_id.startswith("mistake/")), lost
    assert not any(lost[case_id] for case_id in lost if case_id.startswith("correct/")), lost


# --- outside the range ----------------------------------------------------------------

NO_JAX = "no-jax"


@pytest.mark.parametrize("name, jax_version, key", [(UNSUPPORTED, UNSUPPORTED, "student.jax_unsupported"),
                                                     (NO_JAX, None, "student.jax_missing")])
@pytest.mark.parametrize("language", ["en", "ko"])
def test_outside_the_range_the_first_check_says_what_to_run(name, jax_version, key, language, student_wheel,
                                                            tmp_path):
    python = _installed(_venv(name, jax_version), student_wheel)
    notebook = tmp_path / "02_where.ipynb"
    shutil.copy(ROOT / "solutions" / "02_where" / "02_where.ipynb", notebook)
    fields = {"found": jax_version or "", "lowest": jax_support.version_text(jax_support.LOWEST),
              "beyond": jax_support.version_text(jax_support.BEYOND)}
    with messages.using(language):
        expected_command = jax_support.JaxProblem(key, fields).sentence(in_notebook=False)
        expected_cell = jax_support.JaxProblem(key, fields).sentence(in_notebook=True)
    command = subprocess.run([str(python.parent / "autograder"), "--lang", language, "check", str(notebook)],
                             capture_output=True, text=True, env=_environment(python, tmp_path / "cache"), timeout=300,
                             cwd=tmp_path)
    assert command.returncode == 2 and command.stdout == "", command.stdout[-2000:] + command.stderr[-2000:]
    assert command.stderr.strip() == expected_command
    cell = subprocess.run([str(python), "-c", "from autograder.notebook import check; "
                           f"print('points', check('safe_log', {{'safe_log': abs}}, lang={language!r}))"],
                          capture_output=True, text=True, env=_environment(python, tmp_path / "cache"), timeout=300,
                          cwd=tmp_path)
    assert cell.returncode == 0, cell.stderr[-3000:]
    assert cell.stdout.splitlines() == [expected_cell, "points 0.0"]
    assert jax_support.install_line(True) in expected_cell and jax_support.install_line(False) in expected_command


# --- 10_parallel at grading's device counts ---------------------------------------------

def test_a_device_count_written_in_fails_autograder_check_as_it_fails_grading(student_wheel, tmp_path):
    """`autograder check` (a fresh process) checks 10 with 4 and with 2 devices, as grading does: a mesh of 4
    written into the code fails the checks the corpus says grading fails, and says with which count."""
    case = next(c for c in mistakes() if c.id == "10_parallel/global_mean_mesh_of_4")
    python = _installed(_venv(PINNED, PINNED), student_wheel)
    command = subprocess.run([str(python.parent / "autograder"), "check", str(case.file), "--assignment",
                              case.assignment, "--exercise", case.function], capture_output=True, text=True,
                             env=_environment(python, tmp_path / "cache"), timeout=600,
                             cwd=tmp_path)
    assert command.returncode == 1, command.stdout[-3000:] + command.stderr[-3000:]
    failed = {line.split()[2:-2] and " ".join(line.split()[2:-2]) for line in command.stdout.splitlines()
              if line.startswith("✗")}
    assert failed == set(case.fails), command.stdout[-3000:]
    assert messages.text("check.with_devices", devices=2, feedback="").strip() in command.stdout


def test_a_check_cell_says_once_which_devices_it_checked_with(student_wheel, tmp_path):
    python = _installed(_venv(PINNED, PINNED), student_wheel)
    script = ("import jax\n"
              "from autograder.notebook import check\n"
              "for _ in range(2):\n"
              "    check('global_mean', {'global_mean': lambda x: x.mean()}, lang='en')\n"
              "    print('---')\n")
    cell = subprocess.run([str(python), "-c", script], capture_output=True, text=True,
                          env=_environment(python, tmp_path / "cache"),
                          timeout=600, cwd=tmp_path)
    assert cell.returncode == 0, cell.stderr[-3000:]
    first, second = cell.stdout.split("---")[:2]
    said = messages.text("student.kernel_devices", devices=1,
                         counts=messages.text("student.device_counts_joined", first="4", last="2"))
    assert " ".join(said.split()) in " ".join(first.split()), first
    assert "grading checks this assignment" not in " ".join(second.split()).lower(), second


# --- float32 rounding, told by a second call in 64 bits ------------------------------

_ROUNDING = """
import json
import numpy as np
from autograder.catalog import messages
from autograder.check.rounding_relation import rounding_hint
from autograder.check.submission import Submission
from autograder.load.submission_source import read
from autograder.sandbox.inprocess import InProcessTransport, load_namespace

namespace, report = load_namespace(read("variances.py"), 60)
submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
x = (3000.0 + np.random.default_rng(3).normal(size=64)).astype(np.float32)
expected = np.asarray(np.var(x.astype(np.float64)))
said = {name: rounding_hint(submission, name, (x,), {}, expected, {}) for name in ("cancelling", "plus_eps")}
print(json.dumps({name: s == messages.text("relation.float32_rounding") for name, s in said.items()}))
"""


@pytest.mark.parametrize("version", jax_support.TESTED)
def test_float32_rounding_is_told_on_every_jax(version, student_wheel, tmp_path):
    """JAX's x64 mode is a context manager of another name before 0.8 (child/wider_floats.py)."""
    python = _installed(_venv(version, version), student_wheel)
    (tmp_path / "variances.py").write_text("import jax.numpy as jnp\n\n"
                                           "def cancelling(x):\n    return jnp.mean(x ** 2) - jnp.mean(x) ** 2\n\n"
                                           "def plus_eps(x):\n    return jnp.var(x) + 1e-3\n")
    done = subprocess.run([str(python), "-c", _ROUNDING], capture_output=True, text=True,
                          env=_environment(python, tmp_path / "cache"), timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.splitlines()[-1]) == {"cancelling": True, "plus_eps": False}


@pytest.mark.parametrize("version", jax_support.TESTED)
def test_a_repeated_check_is_forked_warm_on_every_jax(version, student_wheel, tmp_path):
    """The student package's warm start (autograder/warm_start) on each JAX: the server imports that JAX without
    starting its backend, and each device count of 10 is forked from it with its own count."""
    from warm_servers import ready_server, reaped_cpu_ticks, servers

    python = _installed(_venv(version, version), student_wheel)
    notebook = Path(shutil.copy(ROOT / "solutions" / "10_parallel" / "10_parallel.ipynb", tmp_path))
    env = dict(_environment(python, tmp_path / "cache"), AUTOGRADER_WARM_CHECKS="on")

    def check() -> subprocess.CompletedProcess:
        return subprocess.run([str(python.parent / "autograder"), "check", str(notebook)], capture_output=True,
                              text=True, env=env, timeout=600, cwd=tmp_path)

    try:
        alone = check()
        server = ready_server(tmp_path / "cache")
        before = reaped_cpu_ticks(server)
        served = check()
        assert reaped_cpu_ticks(server) > before, "the second check did not run in forks of the warm server"
    finally:
        for pid in servers(tmp_path / "cache"):
            os.kill(pid, 9)
    assert alone.returncode == 0, alone.stdout[-3000:] + alone.stderr[-3000:]
    assert (served.returncode, served.stdout) == (alone.returncode, alone.stdout)
