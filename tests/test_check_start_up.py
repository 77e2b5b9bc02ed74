"""What a student's `autograder check` leaves out because nothing it checks needs it.

Each test runs in a fresh Python, where "imported" means imported by the code under test:
- a loaded program runs without JAX loading its LAPACK kernels (scipy's BLAS and LAPACK), which no loaded
  program can call, since every custom call is refused at load (cleanroom/programs.py);
- the process that starts one process per device count and merges their results never imports JAX, nor
  NumPy (student/cli.py, student/checking.py, student/recorded.py).
How fast a check answers is measured in benchmarks/student_check.py, not here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(code: str, *arguments: str) -> dict:
    completed = subprocess.run([sys.executable, "-c", textwrap.dedent(code), *arguments], capture_output=True,
                               text=True, cwd=ROOT, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def test_a_loaded_program_runs_and_differentiates_without_jax_loading_lapack():
    found = _run("""
        import json, sys
        import jax, jax.numpy as jnp
        import numpy as np
        from jax._src.export import _export
        from autograder.cleanroom.programs import ProgramTable

        before = getattr(_export, "_ensure_backends_initialized", None)
        exported = jax.export.export(jax.jit(lambda x: jnp.sin(x) * 2.0 + 1.0))(
            jax.ShapeDtypeStruct((5,), jnp.float32))
        table = ProgramTable()
        handle, _ = table.load(bytes(exported.serialize(vjp_order=1)))
        x = np.linspace(0.0, 1.0, 5, dtype=np.float32)
        value = np.asarray(table.run(handle, [x], {}))
        gradient = np.asarray(table.run(handle, [x], {}, gradient=True))
        print(json.dumps({"value": np.allclose(value, np.sin(x) * 2 + 1, rtol=1e-5),
                          "gradient": np.allclose(gradient, np.cos(x) * 2, rtol=1e-5),
                          "lapack": "scipy.linalg" in sys.modules,
                          "restored": getattr(_export, "_ensure_backends_initialized", None) is before}))
    """)
    assert found == {"value": True, "gradient": True, "lapack": False, "restored": True}


def test_jax_still_loads_lapack_for_a_program_that_is_not_a_loaded_one():
    """The step left out is left out only while a loaded program runs: the student's own code gets it."""
    found = _run("""
        import json, sys
        import jax, jax.numpy as jnp
        import numpy as np
        from jax._src.export import _export
        from autograder.cleanroom.programs import ProgramTable

        exported = jax.export.export(jax.jit(lambda x: x + 1.0))(jax.ShapeDtypeStruct((3,), jnp.float32))
        table = ProgramTable()
        handle, _ = table.load(bytes(exported.serialize()))
        table.run(handle, [np.zeros(3, np.float32)], {})
        has_step = hasattr(_export, "_ensure_backends_initialized")
        solved = jax.export.export(jax.jit(jnp.linalg.inv))(jax.ShapeDtypeStruct((2, 2), jnp.float32))
        inverse = np.asarray(solved.call(np.array([[2.0, 0.0], [0.0, 4.0]], np.float32)))
        print(json.dumps({"inverse": np.allclose(inverse, [[0.5, 0.0], [0.0, 0.25]]),
                          "lapack": "scipy.linalg" in sys.modules or not has_step}))
    """)
    assert found == {"inverse": True, "lapack": True}


@pytest.fixture
def package_with_device_counts(tmp_path) -> Path:
    index = {"format": 1, "assignments": {"10_parallel": {"global_mean": {"correct": 1.0}}},
             "devices": {"10_parallel": [2, 4]},
             "limits": {"call_seconds": 10, "submission_seconds": 60, "load_seconds": 30}}
    (tmp_path / "index.json").write_text(json.dumps(index), encoding="utf-8")
    return tmp_path


def test_the_process_that_merges_device_counts_never_imports_jax(package_with_device_counts, tmp_path):
    submission = tmp_path / "10_parallel.py"
    submission.write_text("def global_mean(x):\n    return x.mean()\n", encoding="utf-8")
    found = _run("""
        import json, sys
        from pathlib import Path
        from autograder.check.results import CheckResult, SubmissionResult
        from autograder.student import check_processes, cli, device_checks, recorded

        package = recorded.Package
        recorded.Package = lambda: package(Path(sys.argv[1]))
        asked = []

        def start(arguments, parts):
            asked.append([part.devices for part in parts])
            return check_processes.Started(arguments, [])

        def merged(started):
            return SubmissionResult(name="10_parallel", path=sys.argv[2], assignment="10_parallel", seed=0,
                                    checks=[CheckResult("global_mean", "correct", 1.0, 1.0, True, "")])

        check_processes.start, device_checks.merged = start, merged
        code = cli.main(["--lang", "en", "check", sys.argv[2]])
        print(json.dumps({"code": code, "counts": asked, "jax": "jax" in sys.modules,
                          "numpy": "numpy" in sys.modules}))
    """, str(package_with_device_counts), str(submission))
    assert found == {"code": 0, "counts": [[2, 4]], "jax": False, "numpy": False}


def test_processes_started_for_a_notebook_that_turns_out_unreadable_are_stopped(package_with_device_counts,
                                                                              tmp_path):
    """The device counts' processes start before the notebook is read, for the assignment its name says; a
    notebook that cannot be read leaves none of them running."""
    notebook = tmp_path / "10_parallel.ipynb"
    notebook.write_text("{ not a notebook", encoding="utf-8")
    found = _run("""
        import json, subprocess, sys
        from pathlib import Path
        from autograder.student import check_processes, cli, recorded

        package = recorded.Package
        recorded.Package = lambda: package(Path(sys.argv[1]))
        started = []

        def start(arguments, parts):
            process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            started.append((arguments, process))
            return check_processes.Started(arguments, [(part, process) for part in parts[:1]])

        check_processes.start = start
        code = cli.main(["--lang", "en", "check", sys.argv[2]])
        print(json.dumps({"code": code, "started": [arguments[-1] for arguments, _ in started],
                          "running": [process.poll() is None for _, process in started]}))
    """, str(package_with_device_counts), str(notebook))
    assert found == {"code": 1, "started": ["10_parallel"], "running": [False]}
