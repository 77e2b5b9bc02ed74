"""The confined kernel's failures say what is wrong: a sandbox that cannot start, a kit Python cannot import.

No real kernel runs here (tests/attacks/trusted_side/test_nbgrader_kernel_confined.py runs real ones).
"""

from __future__ import annotations

import os
import shutil
import sys

import nbformat
import pytest
from traitlets.config import Config

from autograder.integrations.nbgrader_preprocessors import KERNEL_DIED, ExecuteUntilKernelDies
from autograder.integrations.nbgrader_sandboxed_grades import FAILURE_KEY
from autograder.sandbox import kernel_sandbox, os_isolation


def _execute(**settings) -> ExecuteUntilKernelDies:
    config = Config()
    config.ExecuteUntilKernelDies.confine_kernel = True
    for name, value in settings.items():
        setattr(config.GradeCheckCellsInSandbox, name, value)
    return ExecuteUntilKernelDies(config=config)


def test_the_kernel_is_confined_only_while_check_cells_are_graded_in_the_os_sandbox():
    assert _execute().kernel_is_confined()
    assert not _execute(enabled=False).kernel_is_confined(), "its check cells need the kit, hidden from it"
    assert not _execute(sandbox="process").kernel_is_confined(), "a machine without the OS sandbox"
    assert not ExecuteUntilKernelDies().kernel_is_confined(), "off unless configured (nbgrader_config.py turns it on)"


def test_a_kernel_sandbox_that_cannot_start_zeroes_every_cell_and_fails_the_submission(monkeypatch):
    monkeypatch.setattr(kernel_sandbox, "_checked", "the OS sandbox needs bubblewrap: `apt-get install bubblewrap`")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_code_cell("x")])
    notebook, resources = _execute().preprocess(notebook, {})
    assert "apt-get install bubblewrap" in resources[FAILURE_KEY]
    assert 'sandbox = "process"' in resources[FAILURE_KEY], "the fix nbgrader's user has"
    for cell in notebook.cells:
        [output] = cell.outputs
        assert output.output_type == "error" and "apt-get install bubblewrap" in output.evalue


def test_a_kit_the_sandboxes_python_cannot_import_is_named_not_blamed_on_namespaces(monkeypatch, tmp_path):
    """The package this process imported, and where from; not bubblewrap's advice about containers."""
    copy = tmp_path / "course" / "autograder"
    copy.mkdir(parents=True)
    (copy / "__init__.py").write_text("")  # a copy of the kit without its child side
    monkeypatch.setattr(os_isolation, "_PACKAGE", copy)
    with pytest.raises(os_isolation.IsolationUnavailable) as raised:
        # The interpreter without this venv: it has no kit of its own to fall back on.
        os_isolation._check_kit_importable(getattr(sys, "_base_executable", sys.executable))
    message = str(raised.value)
    assert f"imported the autograder package from {copy}" in message and "ModuleNotFoundError" in message
    assert "namespaces" not in message


def test_the_kit_is_imported_from_where_this_process_imported_it():
    command = os_isolation.module_command("python", "autograder.child.zygote", "3")
    assert command[:3] == ["python", "-I", "-c"]
    assert command[4:] == [str(os_isolation._PACKAGE.parent), "autograder.child.zygote", "3"]


_REAL_KERNEL = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("bwrap") is None,
                                  reason="the confined kernel needs root and bubblewrap")
CELLS = ("import os\nprint(os.getuid())",
         "while True:\n    pass",                       # runs out of its time: interrupted
         "block = bytearray(8 << 30)",                  # beyond grading.toml's memory limit
         "print('still running')",
         "os.kill(os.getpid(), 9)",                     # the kernel dies
         "print('never')")


@_REAL_KERNEL
def test_time_memory_and_death_in_a_confined_kernel_follow_the_documented_rules(tmp_path):
    """A cell out of time is interrupted and later cells run; out of memory raises; after a death nothing runs."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    execute = _execute()
    # The loop never ends, so it reaches any limit; the other cells end at once on any machine.
    execute.timeout, execute.startup_timeout = 20, 600
    notebook, _ = execute.preprocess(notebook, {"metadata": {"path": str(tmp_path)}})
    uid, loop, memory, after, death, never = notebook.cells
    assert int(uid.outputs[0].text) >= os_isolation.FIRST_UID
    assert [o.ename for o in loop.outputs if o.output_type == "error"][-1] in ("KeyboardInterrupt", "CellTimeoutError")
    assert [o.ename for o in memory.outputs if o.output_type == "error"] == ["MemoryError"]
    assert after.outputs[0].text == "still running\n"
    assert death.outputs[-1].evalue == KERNEL_DIED
    assert never.outputs[0].ename == "NotRun"
    assert not kernel_sandbox._uid_pool()._held, "the dead kernel's uid went back to the pool"
