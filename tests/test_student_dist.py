"""The student distribution: `autograder release --student-dist DIR` (the wheel and the Colab-ready notebooks).

Builds the distribution once for the module, and one fresh virtual
environment holding only jax, numpy, ipykernel and nbclient, as a new
student's (downloads from the package registry; a few minutes the first
time, then from pip's cache). AUTOGRADER_STUDENT_JAX=VERSION installs that
jax and jaxlib instead of the newest (the oldest supported is
`wheel.REQUIRES`' lower bound); AUTOGRADER_STUDENT_PYTHON=python3.13 makes
the venv with another interpreter.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import nbformat
import numpy as np
import parts_log
import pytest
from solution_lines import secret_lines

from autograder import grading_config
from autograder.check.submission import Submission
from autograder.integrations import release
from autograder.load.submission_source import read
from autograder.sandbox.inprocess import InProcessTransport, load_namespace
from autograder.student import exercise_halves, notebooks, recorded, replay, wheel

ROOT = Path(__file__).resolve().parent.parent
HANGUL = re.compile("[\uac00-\ud7a3]")


@pytest.fixture(scope="module")
def config():
    return grading_config.load()


@pytest.fixture(scope="module")
def released(tmp_path_factory, config) -> tuple[Path, str]:
    """The distribution as `autograder release --student-dist DIR` writes it by default, and what it said on stderr."""
    out = tmp_path_factory.mktemp("student-dist")
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        assert release.student_dist(config, out) == 0
    return out, said.getvalue()


@pytest.fixture(scope="module")
def dist(released) -> Path:
    return released[0]


@pytest.fixture(scope="module")
def wheel_path(dist) -> Path:
    (found,) = dist.glob("*.whl")
    return found


@pytest.fixture(scope="module")
def wheel_files(wheel_path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel_path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _student_notebooks(dist: Path) -> list[Path]:
    return sorted(dist.glob("*/*.ipynb")) + sorted(dist.glob("ko/*/*.ipynb"))


# --- no answer key -----------------------------------------------------------------

def _texts(name: str, content: bytes) -> list[tuple[str, str]]:
    """The text of a file of the distribution, as written and as its strings read (unescaped);
    archives member by member."""
    if name.endswith((".npz", ".whl", ".zip")):
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            return [item for member in archive.namelist() for item in _texts(f"{name}:{member}", archive.read(member))]
    raw = content.decode("utf-8", errors="replace")
    texts = [(name, raw)]
    if name.endswith(".ipynb"):
        notebook = nbformat.reads(raw, as_version=4)
        texts.append((name, "\n".join([c.source for c in notebook.cells] + [
            json.dumps(o, ensure_ascii=False) for c in notebook.cells for o in c.get("outputs", [])])))
    elif name.endswith(".json"):
        texts.append((name, "\n".join(_strings(json.loads(raw)))))
    elif name.endswith(".py"):
        texts.append((name, "\n".join(n.value for n in ast.walk(ast.parse(raw)) if isinstance(n, ast.Constant)
                                      and isinstance(n.value, str))))
    elif name.endswith(".po"):
        import polib

        texts.append((name, "\n".join(f"{e.msgid}\n{e.msgstr}" for e in polib.pofile(raw))))
    return texts


def _strings(node) -> list[str]:
    if isinstance(node, dict):
        return [s for key, value in node.items() for s in [key, *_strings(value)]]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return [node] if isinstance(node, str) else []


def _leaks(texts: list[tuple[str, str]], secrets: set[str]) -> list[str]:
    return [f"{name}: {line}" for name, text in texts for line in sorted(secrets) if line in text]


def _po_string(text: str) -> str:
    """`text` as a PO file quotes it (the escapes of JSON without its \\u escapes: PO files are UTF-8)."""
    return json.dumps(text, ensure_ascii=False)


def test_secret_lines_are_the_solutions():
    secrets = secret_lines()
    assert len(secrets) > 40  # every assignment's solution contributes
    assert 'key_x, key_noise = jax.random.split(key)' not in secrets  # the notebook's prose shows it
    # Found however a file escapes it: JSON, a notebook, a Python string, a PO entry.
    quoted = next(line for line in sorted(secrets) if '"' in line)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(quoted)])
    for name, content in [("a.json", json.dumps({"k": quoted})), ("a.ipynb", nbformat.writes(notebook)),
                          ("a.py", f"X = {quoted!r}\n"),
                          ("a.po", f'msgid ""\nmsgstr ""\n\nmsgid {_po_string(quoted)}\nmsgstr ""\n')]:
        assert _leaks(_texts(name, content.encode()), {quoted}), name


def test_wheel_contains_no_solution_line(wheel_files):
    secrets = secret_lines()
    texts = [item for name, content in wheel_files.items() for item in _texts(name, content)]
    assert not _leaks(texts, secrets)


def test_student_notebooks_contain_no_solution_line(dist):
    secrets = secret_lines()
    paths = _student_notebooks(dist)
    assert len(paths) >= 8
    texts = [item for path in paths for item in _texts(str(path), path.read_bytes())]
    assert not _leaks(texts, secrets)


def test_wheel_excludes_suites_solutions_examples(wheel_files):
    names = set(wheel_files)
    assert all(n.startswith(("autograder/", "jax_exercises_student-")) for n in names), sorted(names)
    forbidden = re.compile(r"(^|/)(suites|solutions|examples|tests|corpus|benchmarks|grade|integrations)/|\.ipynb$|"
                           r"autograder/(grading_config|cli)\.py$|"
                           r"autograder/check/(runner|pytest_plugin|suite_session)\.py$|"
                           r"autograder/sandbox/(parent|zygote_client|os_isolation|limits|shared_programs)\.py$|"
                           r"autograder/child/(main|zygote|confinement|audit_guard|tamper)\.py$|"
                           r"autograder/student/(recording|probing|wheel|notebooks)\.py$")
    assert not [n for n in names if forbidden.search(n)]
    # No file of the kit's answer key, under any name.
    key_files = [p for pattern in ("autograder/suites/*.py", "examples/**/*", "tests/corpus/**/*.py", "solutions/**/*")
                 for p in ROOT.glob(pattern) if p.is_file() and p.stat().st_size > 200]
    contents = set(wheel_files.values())
    assert not [str(p) for p in key_files if p.read_bytes() in contents]
    # The catalog keeps the generic sentences and leaves out the suites' exercise advice.
    catalog = wheel_files["autograder/catalog/messages.py"].decode()
    assert "check.wrong_values" in catalog and "hint.KeyReuseError" in catalog
    assert not re.findall(r"['\"]0\d_\w+\.\w+\.\w+['\"]\s*:", catalog)
    metadata = next(v for k, v in wheel_files.items() if k.endswith(".dist-info/METADATA")).decode()
    assert "Name: jax-exercises-student" in metadata and "Requires-Python: >=3.11" in metadata
    requirements = [line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Requires-Dist")]
    assert not [r for r in requirements if "==" in r or re.match(r"(nbgrader|jupyter|notebook|pytest)", r)]


def test_recorded_data_holds_no_code(wheel_files):
    data = {n: c for n, c in wheel_files.items() if n.startswith("autograder/student/data/")}
    assert {Path(n).suffix for n in data} == {".json", ".npz"}
    for name, content in data.items():
        if name.endswith(".npz"):
            with zipfile.ZipFile(io.BytesIO(content)) as archive:
                for member in archive.namelist():
                    assert member.endswith(".npy")
                    array = np.load(io.BytesIO(archive.read(member)), allow_pickle=False)
                    assert array.dtype.kind in "biufc" and array.dtype.fields is None
        else:
            strings = _strings(json.loads(content))
            # No program text: no jaxpr, StableHLO, Python source or pickled object.
            assert not [s for s in strings if re.search(r"stablehlo|func\.func|\{ lambda|\bdef |\blambda\b|import |"
                                                         r"__reduce__|pickle", s)], name


# --- Colab-ready notebooks ---------------------------------------------------------

def test_install_cell_present_and_first(dist, wheel_path):
    paths = _student_notebooks(dist)
    assert {p.parent.name for p in paths if p.parent.parent == dist} == set(grading_config.load().assignments)
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        code = [c for c in notebook.cells if c.cell_type == "code"]
        install = code[0]
        assert install.id == notebooks.INSTALL_CELL_ID and "nbgrader" not in install.metadata
        assert "import autograder.notebook" in install.source and "%pip install" in install.source
        relative = os.path.relpath(wheel_path, path.parent)
        assert f"'{relative}'" in install.source
        # Every other cell is nbgrader's release, unchanged.
        released = path.relative_to(dist)
        source = ROOT / "assignments" / released
        if source.exists():
            original = nbformat.read(source, as_version=4)
            assert [c for c in notebook.cells if c.get("id") != notebooks.INSTALL_CELL_ID] == original.cells
            assert notebook.metadata == original.metadata


def test_release_without_install_url_warns_about_colab(released):
    _, said = released
    assert release.NO_INSTALL_URL_WARNING in said and "Colab" in release.NO_INSTALL_URL_WARNING


# --- a new student's environment -----------------------------------------------------

def _pip(python: Path, *args: str) -> subprocess.CompletedProcess:
    completed = subprocess.run([str(python), "-m", "pip", *args], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout[-2000:] + completed.stderr[-3000:]
    return completed


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory) -> Path:
    """A new venv with only jax, numpy, ipykernel and nbclient (and what they need)."""
    interpreter = shutil.which(os.environ.get("AUTOGRADER_STUDENT_PYTHON", "python3.11")) or sys.executable
    venv = tmp_path_factory.mktemp("student-venv")
    # Filled by this process's pip (`--python`), without compiling every module ahead: a third of the
    # time. pip itself is installed too, as Colab has it: the install cell runs `%pip install`.
    subprocess.run([interpreter, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    pinned = os.environ.get("AUTOGRADER_STUDENT_JAX")
    jax = [f"jax=={pinned}", f"jaxlib=={pinned}", "numpy<2"] if pinned else ["jax", "numpy"]
    _pip(Path(sys.executable), "--python", str(python), "install", "--quiet", "--no-compile", "pip", *jax,
         "ipykernel", "nbclient")
    kernels = venv / "kernels" / "student"
    kernels.mkdir(parents=True)
    (kernels / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "student", "language": "python"}))
    return python


def _environment(venv_python: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTOGRADER_", "PYTHON", "JUPYTER", "VIRTUAL_ENV"))}
    env["JUPYTER_PATH"] = str(venv_python.parent.parent)  # only the kernel spec of this venv
    env["AUTOGRADER_JAX_CACHE"] = "off"
    env["AUTOGRADER_WARM_CHECKS"] = "off"  # no server outlives the test (test_warm_checks.py tests them)
    env["PATH"] = os.pathsep.join([str(venv_python.parent), env.get("PATH", "")])
    return env


_RUN_NOTEBOOK = """
import sys, nbformat
from nbclient import NotebookClient
path, out = sys.argv[1], sys.argv[2]
notebook = nbformat.read(path, as_version=4)
NotebookClient(notebook, timeout=600, kernel_name="student", allow_errors=True,
               resources={"metadata": {"path": sys.argv[3]}}).execute()
nbformat.write(notebook, out)
"""


def _run_notebook(python: Path, path: Path) -> nbformat.NotebookNode:
    out = path.with_name(f"executed_{path.name}")
    completed = subprocess.run([str(python), "-c", _RUN_NOTEBOOK, str(path), str(out), str(path.parent)],
                               capture_output=True, text=True, env=_environment(python), timeout=900)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return nbformat.read(out, as_version=4)


def _check_cells(notebook) -> list[tuple[str, float, float, str]]:
    """(grade_id, points, score, printed output) of every check cell."""
    found = []
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if not (meta.get("grade") and str(meta.get("grade_id", "")).startswith("check_")):
            continue
        printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        # In a student's kernel the table is displayed (HTML with a text form) and the cell has no value.
        shown = "".join(o.data.get("text/plain", "") for o in cell.outputs if o.output_type == "display_data")
        results = [o for o in cell.outputs if o.output_type == "execute_result"]
        errors = [f"{o.ename}: {o.evalue}" for o in cell.outputs if o.output_type == "error"]
        totals = re.findall(r"([0-9.]+) / [0-9.]+\s*$", shown, flags=re.M)
        score = float(results[0].data["text/plain"]) if results else float(totals[-1]) if totals else float("nan")
        found.append((meta["grade_id"], float(meta["points"]), score, printed + shown + "".join(errors)))
    return found


def _filled(student: Path, solution: Path, target: Path) -> Path:
    """The student notebook with every solution cell replaced by the reference solution's cell of the same grade_id."""
    notebook = nbformat.read(student, as_version=4)
    reference = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nbformat.read(solution, as_version=4).cells
                 if c.metadata.get("nbgrader", {}).get("solution")}
    filled = 0
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("solution"):
            cell.source = reference[meta["grade_id"]]
            filled += 1
    assert filled
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, target)
    return target


ASSIGNMENT = "02_where"
NOWHERE = "no-such-folder/jax_exercises_student-0.0.0-py3-none-any.whl"


@pytest.fixture(scope="module")
def run_without_package(fresh_venv, dist, tmp_path_factory) -> nbformat.NotebookNode:
    """The Korean notebook, its install cell pointing at a wheel that is not there (Colab without
    --student-install-url), run before anything installed the package."""
    korean = nbformat.read(ROOT / "assignments" / "ko" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    path = tmp_path_factory.mktemp("colab") / f"{ASSIGNMENT}.ipynb"
    nbformat.write(notebooks.with_install_cell(korean, NOWHERE), path)
    return _run_notebook(fresh_venv, path)


def test_check_cells_without_package_say_what_to_do(run_without_package):
    from autograder.catalog import messages
    from autograder.student.strings import text

    with messages.using("ko"):
        sentence = text("student.install_failed", address=NOWHERE)
    checks = _check_cells(run_without_package)
    assert checks and all(printed.strip() == sentence for _, _, _, printed in checks), checks


@pytest.fixture(scope="module")
def run_before_install_cell(fresh_venv, dist, tmp_path_factory) -> nbformat.NotebookNode:
    """The Korean notebook as nbgrader released it (no install cell), run where the package is not installed:
    what a student sees who runs a check cell before the install cell, after a kernel restart say."""
    path = tmp_path_factory.mktemp("before-install") / f"{ASSIGNMENT}.ipynb"
    shutil.copy(ROOT / "assignments" / "ko" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", path)
    return _run_notebook(fresh_venv, path)


def test_check_cell_run_before_the_install_cell_says_what_to_do(run_before_install_cell):
    from autograder.catalog import messages

    with messages.using("ko"):
        sentence = messages.text("student.check_cell_comment")
    errors = [(cell.metadata["nbgrader"]["grade_id"], output) for cell in run_before_install_cell.cells
              for output in cell.get("outputs", []) if output.output_type == "error"]
    assert errors and all(output.ename == "ModuleNotFoundError" for _, output in errors), errors
    for grade_id, output in errors:
        shown = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(output.traceback))  # the traceback as the student sees it
        assert grade_id.startswith("check_") and sentence in shown, (grade_id, shown)


@pytest.fixture(scope="module")
def installed_by_notebook(fresh_venv, dist, run_without_package,
                          run_before_install_cell) -> tuple[Path, nbformat.NotebookNode]:
    """The untouched stub run top to bottom where the distribution lies: its install cell installs the wheel
    (after the run without the package, which needs a venv without it)."""
    notebook = _run_notebook(fresh_venv, dist / ASSIGNMENT / f"{ASSIGNMENT}.ipynb")
    return fresh_venv, notebook


def test_install_cell_installs_and_the_stub_scores_zero(installed_by_notebook):
    python, notebook = installed_by_notebook
    listed = _pip(python, "list", "--format", "json").stdout
    assert "jax-exercises-student" in listed
    checks = _check_cells(notebook)
    assert checks and all(score == 0 for _, _, score, _ in checks), checks
    assert all("Total: 0 /" in printed for _, _, _, printed in checks)


def test_installs_without_grader_pins(installed_by_notebook):
    python, _ = installed_by_notebook
    versions = {p["name"].lower().replace("_", "-"): p["version"]
                for p in json.loads(_pip(python, "list", "--format", "json").stdout)}
    assert not versions.keys() & {"nbgrader", "jupyter-server", "notebook", "jupyterlab", "pytest", "matplotlib",
                                  "tqdm"}
    _pip(python, "check")
    pinned = os.environ.get("AUTOGRADER_STUDENT_JAX")
    if pinned:  # the student package did not upgrade the jax it found
        assert versions["jax"] == versions["jaxlib"] == pinned


def test_filled_notebook_full_marks_alone_in_a_folder(installed_by_notebook, dist, tmp_path):
    python, _ = installed_by_notebook
    filled = _filled(dist / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", ROOT / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb",
                     tmp_path / "alone" / f"{ASSIGNMENT}.ipynb")
    checks = _check_cells(_run_notebook(python, filled))
    assert len(checks) == len(grading_config.load().points[ASSIGNMENT])
    assert all(score == points and "All checks passed." in printed for _, points, score, printed in checks), checks


def test_autograder_check_passes_filled_fails_stub(installed_by_notebook, dist, tmp_path):
    python, _ = installed_by_notebook
    command = python.parent / "autograder"
    assignment = "04_static_args"
    stub = tmp_path / "stub" / f"{assignment}.ipynb"
    stub.parent.mkdir()
    shutil.copy(dist / assignment / f"{assignment}.ipynb", stub)
    filled = _filled(stub, ROOT / "solutions" / assignment / f"{assignment}.ipynb", tmp_path / "filled" / stub.name)
    passed = subprocess.run([str(command), "check", str(filled)], capture_output=True, text=True,
                            env=_environment(python), cwd=filled.parent, timeout=600)
    assert passed.returncode == 0, passed.stdout[-3000:] + passed.stderr[-2000:]
    assert "All checks passed." in passed.stdout
    failed = subprocess.run([str(command), "check", str(stub)], capture_output=True, text=True,
                            env=_environment(python), cwd=stub.parent, timeout=600)
    assert failed.returncode == 1 and "Total: 0 /" in failed.stdout, failed.stdout[-3000:]


def test_autograder_check_in_two_halves_says_what_one_process_says(installed_by_notebook, dist, tmp_path):
    """The student package checks a whole notebook in two processes where two cores can run them
    (student.exercise_halves), with the same output as on one core (`taskset`'s affinity, which it reads)."""
    assert len(os.sched_getaffinity(0)) >= 2, "this test compares two cores with one: it needs a machine with two"
    python, _ = installed_by_notebook
    assignment = "06_prng"
    stub = tmp_path / "stub" / f"{assignment}.ipynb"
    stub.parent.mkdir()
    shutil.copy(dist / assignment / f"{assignment}.ipynb", stub)
    filled = _filled(stub, ROOT / "solutions" / assignment / f"{assignment}.ipynb", tmp_path / "filled" / stub.name)
    for notebook in (filled, stub):
        said, parts = {}, {}
        for cores in (1, 2):
            log = tmp_path / f"{notebook.parent.name}-{cores}.log"
            said[cores] = subprocess.run(
                [str(python), "-c", parts_log.checking_script("autograder.student.cli"), "check", str(notebook)],
                capture_output=True, text=True, env={**_environment(python), parts_log.VARIABLE: str(log)},
                cwd=notebook.parent, timeout=600,
                preexec_fn=lambda cores=cores: os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:cores]))
            parts[cores] = parts_log.started_parts(log)
        assert (said[2].returncode, said[2].stdout) == (said[1].returncode, said[1].stdout), said[2].stdout[-3000:]
        assert said[2].returncode == (0 if notebook == filled else 1)
        assert parts[1] == [] and [len(started) for started in parts[2]] == [2], parts
        # Both go through the exercises from the costliest (the suites' table, copied into the package).
        seconds = exercise_halves.seconds_in_table(ROOT / "autograder" / "suites", assignment)
        assert parts[2] == [[sorted(seconds, key=lambda name: -seconds[name])] * 2], parts


def test_the_package_knows_what_each_exercise_costs_from_the_suites_table(wheel_files):
    """What student.exercise_halves takes the costliest first by: autograder/suites/check_seconds.toml, a
    measure for every function of every assignment checked in two processes, copied into the index."""
    config = grading_config.load()
    index = json.loads(wheel_files["autograder/student/data/index.json"])
    for assignment in config.assignments:
        table = exercise_halves.seconds_in_table(ROOT / "autograder" / "suites", assignment)
        if config.device_counts(assignment):
            assert table == {} and assignment not in index["check_seconds"]  # checked once per device count
            continue
        assert sorted(table) == sorted(config.functions(assignment)), (
            f"{assignment}: autograder/suites/check_seconds.toml lacks a function; "
            "run .venv/bin/python scripts/write_check_seconds.py")
        assert index["check_seconds"][assignment] == table and all(seconds > 0 for seconds in table.values())


# The notebook's own examples of a wrong value, the exercise hint the grader gives for each, and how it names the call.
GRADERS_HINTS = [
    ("safe_log_single_where.py", "safe_log", "02_where.safe_log.double_where",
     "jax.grad(lambda x: safe_log(x).sum())(f32["),
    ("masked_mean_divide_by_count.py", "masked_mean", "02_where.masked_mean.empty", "rtol=0, atol=0"),
]


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("mistake, function, key, grader_says", GRADERS_HINTS)
def test_student_package_gives_the_graders_hint(installed_by_notebook, config, language, mistake, function, key,
                                                grader_says):
    """The installed wheel's `autograder check` gives the grader's hint for a wrong value, in the grader's words
    and language, names the call as the grader does (not a mode the student never wrote) with its tolerances."""
    from autograder.catalog import messages

    python, _ = installed_by_notebook
    path = ROOT / "tests" / "corpus" / ASSIGNMENT / "mistakes" / mistake
    checked = subprocess.run([str(python.parent / "autograder"), "--lang", language, "check", str(path),
                              "--assignment", ASSIGNMENT, "--exercise", function],
                             capture_output=True, text=True, env=_environment(python), timeout=600)
    said = " ".join(checked.stdout.split())  # the table wraps long lines
    with messages.using(language), messages.hints_at(config.hint_level("check")):
        hint = messages.text("call.hint", hint=messages.text(key))
    assert checked.returncode == 1 and " ".join(hint.split()) in said, checked.stdout[-3000:] + checked.stderr[-2000:]
    assert grader_says in said and "grad_sum" not in said, checked.stdout[-3000:]


def test_korean_notebook_checks_in_korean(installed_by_notebook, dist, tmp_path):
    korean = sorted(dist.glob("ko/*/*.ipynb"))
    assert korean and (ROOT / "autograder" / "catalog" / "locale" / "ko.po").exists(), "Korean notebooks and catalog"
    python, _ = installed_by_notebook
    path = korean[0]
    assignment = path.stem
    filled = _filled(path, ROOT / "solutions" / "ko" / assignment / path.name, tmp_path / "ko" / path.name)
    checks = _check_cells(_run_notebook(python, filled))
    assert checks and all(score == points for _, points, score, _ in checks), checks
    assert all(HANGUL.search(printed) for _, _, _, printed in checks), checks


# --- the replay agrees with the grader ----------------------------------------------

@pytest.fixture(scope="module")
def wheel_data(wheel_files, tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("wheel-data")
    for name, content in wheel_files.items():
        if name.startswith("autograder/student/data/"):
            (directory / Path(name).name).write_bytes(content)
    return directory


# An assignment graded with several device counts is recorded with the largest (release._record_with_devices),
# and a student's notebook asks for that many: its replay runs in a process that has them.
_REPLAY_IN_A_PROCESS = """
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[5])
from test_student_dist import _replayed
functions = json.loads(sys.argv[4])
got = _replayed(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), set(functions) if functions else None)
print(json.dumps([[f, p, passed, feedback] for (f, p), (passed, feedback) in got.items()]))
"""


def _replayed_with_devices(data: Path, assignment: str, path: Path, functions=None):
    devices = grading_config.load().device_counts(assignment)
    if not devices:
        return _replayed(data, assignment, path, functions)
    completed = subprocess.run([sys.executable, "-c", _REPLAY_IN_A_PROCESS, str(data), assignment, str(path),
                                json.dumps(sorted(functions) if functions else None), str(Path(__file__).parent)],
                               env=dict(os.environ, JAX_NUM_CPU_DEVICES=str(max(devices)), JAX_PLATFORMS="cpu"),
                               capture_output=True, text=True, check=True, cwd=ROOT)
    return {(f, p): (passed, feedback) for f, p, passed, feedback in json.loads(completed.stdout.splitlines()[-1])}


def _replayed(data: Path, assignment: str, path: Path, functions=None) -> dict[tuple[str, str], tuple[bool, str]]:
    record, arrays = recorded.read(assignment, data)
    namespace, report = load_namespace(read(path), 60)
    submission = Submission(InProcessTransport(namespace, report, 30, 240), report.notes)
    return {(c.function, c.prop): (c.passed, c.feedback) for c in replay.replay(record, arrays, submission, functions)}


MISTAKES_PER_ASSIGNMENT = 2


@pytest.mark.parametrize("assignment", grading_config.load().assignments)
def test_replay_agrees_with_the_grader(assignment, wheel_data):
    """The solution passes every replayed check, the stub none; a corpus mistake fails at least what the grader fails.

    The grader's verdict on a mistake is its cases.toml `fails` (tests/test_corpus.py holds the grader to it).
    The replay may fail more (it also compares, with their dtypes, the values the grader did not compare):
    scripts/student_replay_agreement.py lists every difference on the whole corpus.
    """
    solution = _replayed_with_devices(wheel_data, assignment, ROOT / "solutions" / assignment / f"{assignment}.ipynb")
    assert solution and all(passed for passed, _ in solution.values()), solution
    stub = _replayed_with_devices(wheel_data, assignment, ROOT / "assignments" / assignment / f"{assignment}.ipynb")
    assert stub.keys() == solution.keys() and not any(passed for passed, _ in stub.values())
    cases = tomllib.loads((ROOT / "tests" / "corpus" / assignment / "cases.toml").read_text(encoding="utf-8"))
    for case in cases["mistake"][:MISTAKES_PER_ASSIGNMENT]:
        got = _replayed_with_devices(wheel_data, assignment, ROOT / "tests" / "corpus" / assignment / case["file"],
                                     {case["function"]})
        missed = [prop for prop in case["fails"] if got[(case["function"], prop)][0]]
        assert not missed, f"{case['file']}: the replay passes {missed}, which the grader fails"


def test_wheel_is_reproducible(dist, wheel_path, tmp_path, config):
    """Built twice from the same records, the wheel is the same bytes (data written deterministically)."""
    data = tmp_path / "data"
    data.mkdir()
    with zipfile.ZipFile(wheel_path) as archive:
        for name in archive.namelist():
            if name.startswith("autograder/student/data/"):
                (data / Path(name).name).write_bytes(archive.read(name))
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    again = wheel.build(tmp_path / "again", version, data, ROOT / "autograder", config.assignments)
    assert again.name == wheel_path.name and again.read_bytes() == wheel_path.read_bytes()
