"""Killing `autograder grade` ends every process it started, however it is killed.

A CI job's timeout, `timeout 300` or Ctrl-C stops the batch parent from
outside. Its grading workers, their zygotes (inside bubblewrap) and the
sandbox children must not outlive it, least of all while a submission spins
forever. Each test starts a real batch (OS sandbox, two workers) on a
submission whose `set_element` never returns and honest classmates, with
time limits far longer than the test waits (so nothing ends by reaching its
own limit), waits until the spinning sandbox child runs, records the
parent's whole process tree, stops the parent, and asserts that within a
bounded time nothing of that tree is left, nor any process that carries the
batch's unique marker. SIGTERM and SIGINT must also leave every placeholder
result and grades.csv.
"""

from __future__ import annotations

import csv
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO, course_config

ASSIGNMENT = "01_immutable_updates"
MARKER_VARIABLE = "AUTOGRADER_TEST_KILL_MARKER"
UNDER_WAY_SECONDS = 300.0  # imports, pytest sessions and zygotes of two workers, on a loaded machine
GONE_SECONDS = 30.0  # a parent-death signal takes milliseconds; this only bounds the wait
EXIT_SECONDS = 60.0  # SIGTERM/SIGINT: the parent stops its workers, writes grades.csv and exits
HONEST = 3

# Longer than the test ever waits: a process that outlives the grader cannot pass by reaching its own limit.
LIMITS = {"call_seconds = 30": "call_seconds = 900", "submission_seconds = 240": "submission_seconds = 1800"}
SPIN_CPU_SECONDS = 1.0  # CPU time of a sandbox child that shows it is the one spinning
SPIN = '''
import jax.numpy as jnp


def set_element(x, index, value):
    while True:
        pass


def set_diagonal(m, values):
    n = m.shape[0]
    return m.at[jnp.arange(n), jnp.arange(n)].set(values)
'''


@dataclass(frozen=True)
class Process:
    """One process, told apart from a later one with the same pid by its start time."""

    pid: int
    start: int
    cmdline: str


@dataclass
class Batch:
    process: subprocess.Popen
    out: Path
    marker: str
    names: list[str]
    log: Path


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, start time) of `pid`, or None if there is no such process."""
    fields = _stat_fields(pid)
    return (fields[0], int(fields[1]), int(fields[19])) if fields else None


def _cpu_seconds(pid: int) -> float:
    fields = _stat_fields(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def _stat_fields(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the name, from the state on (none if there is no such process)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return []
    return text[text.rindex(")") + 2:].split()  # the name may hold spaces and parentheses


def _read(pid: int, name: str) -> str:
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _pids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _tree(root: int) -> list[Process]:
    """`root` and all its descendants, found from every process's parent pid."""
    children: dict[int, list[int]] = {}
    starts: dict[int, int] = {}
    for pid in _pids():
        stat = _stat(pid)
        if stat is not None:
            children.setdefault(stat[1], []).append(pid)
            starts[pid] = stat[2]
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in starts:
            found.append(Process(pid, starts[pid], _read(pid, "cmdline")))
        todo.extend(children.get(pid, []))
    return found


def _alive(process: Process) -> bool:
    stat = _stat(process.pid)
    # A zombie has ended: only whoever inherited it has yet to reap it (PID 1 of a container may never).
    return stat is not None and stat[2] == process.start and stat[0] not in "ZX"


def _marked(batch: Batch) -> list[Process]:
    """Live processes whose command line or environment names the batch's marker."""
    found = []
    for pid in _pids():
        stat = _stat(pid)
        if pid == os.getpid() or stat is None or stat[0] in "ZX":
            continue
        if any(batch.marker in _read(pid, name) for name in ("cmdline", "environ")):
            found.append(Process(pid, stat[2], _read(pid, "cmdline")))
    return found


def _left(recorded: list[Process], batch: Batch) -> list[Process]:
    survivors = {p for p in recorded if _alive(p)} | set(_marked(batch))
    return sorted(survivors, key=lambda p: p.pid)


def _wait_until_none_left(recorded: list[Process], batch: Batch) -> list[Process]:
    deadline = time.monotonic() + GONE_SECONDS
    while True:
        left = _left(recorded, batch)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _start_batch(tmp_path: Path) -> Batch:
    batch = tmp_path / "batch"
    batch.mkdir()
    (batch / f"a_spin_{ASSIGNMENT}.py").write_text(SPIN)
    for i in range(HONEST):
        shutil.copy(REPO / "solutions" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", batch / f"honest_{i}_{ASSIGNMENT}.ipynb")
    text = (REPO / "grading.toml").read_text()
    for old, new in LIMITS.items():
        assert old in text, f"grading.toml no longer says {old!r}: update LIMITS"
        text = text.replace(old, new)
    config = course_config(tmp_path, text)
    marker = f"kill-test-{secrets.token_hex(8)}"
    out = tmp_path / marker  # the parent's command line names the marker, its environment reaches the workers
    log = tmp_path / "grade.log"
    with open(log, "wb") as stream:
        process = subprocess.Popen(
            [sys.executable, "-m", "autograder", "--config", str(config), "grade", str(batch), "--out", str(out),
             "--jobs", "2", "--seed", "11"],
            cwd=REPO, env=dict(os.environ, **{MARKER_VARIABLE: marker}), stdin=subprocess.DEVNULL,
            stdout=stream, stderr=stream)
    names = sorted(path.stem for path in batch.iterdir())
    return Batch(process, out, marker, names, log)


def _log_tail(batch: Batch) -> str:
    return batch.log.read_text(errors="replace")[-3000:]


def _wait_until_under_way(batch: Batch) -> list[Process]:
    """The parent's process tree once the classmates are finished and a sandbox child spins.

    The spinning submission is the first job, so once its classmates are finished
    the sandbox child still using CPU is the one that spins. The worker that graded
    them ends as soon as no job is left for it (the batch closes it): the tree is
    recorded once it has, so it is the spinning worker's, its zygote's and children's.
    """
    deadline = time.monotonic() + UNDER_WAY_SECONDS
    while time.monotonic() < deadline:
        assert batch.process.poll() is None, f"the batch ended before it was killed:\n{_log_tail(batch)}"
        tree = _tree(batch.process.pid)
        workers = [p for p in tree if "autograder.grade.batch_worker" in p.cmdline]
        # One worker left: the classmates' has ended (a Ctrl-C while it closes is test_worker_handle's).
        if len(workers) == 1 and _placeholders_written(batch) and _honest_finished(batch) and _spinning(tree):
            return tree
        time.sleep(0.5)
    tree = "\n".join(f"{p.pid} ppid {(_stat(p.pid) or ('?', 0, 0))[1]} state {(_stat(p.pid) or ('gone',))[0]} "
                     f"cpu {_cpu_seconds(p.pid):.1f} s: {p.cmdline[:160]}" for p in _tree(batch.process.pid))
    pytest.fail(f"grading was not under way after {UNDER_WAY_SECONDS:g} s:\n{_log_tail(batch)}\n"
                f"the batch's processes:\n{tree}")


def _placeholders_written(batch: Batch) -> bool:
    return all((batch.out / name / "results.json").exists() for name in batch.names)


def _honest_finished(batch: Batch) -> bool:
    return all(_finished(batch.out / name / "results.json") for name in batch.names if name.startswith("honest_"))


def _finished(results: Path) -> bool:
    try:
        return json.loads(results.read_text())["extra_data"].get("finished") is True
    except (OSError, ValueError, KeyError):
        return False


def _spinning(tree: list[Process]) -> bool:
    """A child the zygote forked (its parent runs autograder.child too) has used CPU for a while."""
    sandbox = {p.pid for p in tree if "autograder.child" in p.cmdline}
    return any((_stat(pid) or ("", 0, 0))[1] in sandbox and _cpu_seconds(pid) >= SPIN_CPU_SECONDS for pid in sandbox)


def _clean_up(batch: Batch, recorded: list[Process]) -> None:
    """Whatever the outcome, leave no process of this batch spinning."""
    if batch.process.poll() is None:
        batch.process.kill()
    batch.process.wait()
    for process in _left(recorded, batch):
        try:
            os.kill(process.pid, signal.SIGKILL)
        except OSError:
            pass


def _describe(left: list[Process]) -> str:
    return "\n".join(f"{p.pid}: {p.cmdline[:200]}" for p in left)


def test_sigkill_of_the_batch_parent_ends_every_process_it_started(tmp_path):
    batch = _start_batch(tmp_path)
    recorded: list[Process] = []
    try:
        recorded = _wait_until_under_way(batch)
        os.kill(batch.process.pid, signal.SIGKILL)
        batch.process.wait()
        left = _wait_until_none_left(recorded, batch)
        assert not left, f"still running {GONE_SECONDS:g} s after the grader was killed:\n{_describe(left)}"
    finally:
        _clean_up(batch, recorded)


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_sigterm_or_sigint_ends_every_process_and_keeps_the_results(tmp_path, stop):
    batch = _start_batch(tmp_path)
    recorded: list[Process] = []
    try:
        recorded = _wait_until_under_way(batch)
        os.kill(batch.process.pid, stop)
        try:
            code = batch.process.wait(timeout=EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the grader did not end within {EXIT_SECONDS:g} s of {stop.name}:\n{_log_tail(batch)}")
        assert code != 0, "an interrupted batch must not pass as a finished one"
        left = _wait_until_none_left(recorded, batch)
        assert not left, f"still running {GONE_SECONDS:g} s after the grader ended:\n{_describe(left)}"
        for name in batch.names:  # a placeholder (or a finished result) for everyone, as before the signal
            assert "extra_data" in json.loads((batch.out / name / "results.json").read_text())
        with open(batch.out / "grades.csv", newline="") as rows:
            assert sorted(row["submission"] for row in csv.DictReader(rows)) == batch.names
    finally:
        _clean_up(batch, recorded)
