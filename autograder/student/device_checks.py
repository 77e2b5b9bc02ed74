"""Checking an assignment that grading checks with several device counts, as grading does.

JAX fixes its device count when its backend starts. `autograder check` runs
in a fresh process, so for an assignment grading.toml grades with several
counts ([devices], recorded in the package's index) it checks in one fresh
process per count, concurrently, and a check passes only if it passed with
every count (check.device_runs, the grader's rule): a mesh of 4 written into
the code fails here as it fails in grading. A check cell runs in a kernel
whose count is already fixed: it checks with that count and says so once per
kernel (`kernel_note`).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys

from autograder.catalog import messages
from autograder.check.device_runs import DeviceRun, merged_outcomes
from autograder.check.failure import Failure
from autograder.check.results import CheckResult, SubmissionResult

# Set in each process of `check_with_each_count`: it checks with this many devices and prints its result as JSON.
DEVICES_VARIABLE = "AUTOGRADER_CHECK_DEVICES"
_NOTED: set[str] = set()


class DeviceCheckFailed(RuntimeError):
    """A process checking with one device count ended without a result (the kit's failure, not the student's)."""


def forced_count() -> int | None:
    """The device count this process checks with, when it is one of `check_with_each_count`'s processes."""
    value = os.environ.get(DEVICES_VARIABLE, "")
    return int(value) if value.isdigit() else None


@dataclasses.dataclass
class Started:
    """The processes of `start_each_count`, one per device count, with the arguments they were started with."""

    arguments: list[str]
    processes: list[tuple[int, subprocess.Popen]]


def check_with_each_count(arguments: list[str], counts: tuple[int, ...]) -> SubmissionResult:
    """The merged result of `autograder <arguments>` run once per count in `counts`, each in a fresh process."""
    return merged(start_each_count(arguments, counts))


def start_each_count(arguments: list[str], counts: tuple[int, ...]) -> Started:
    """`autograder <arguments>` started once per count in `counts`, each in a fresh process; `merged` waits."""
    processes = []
    for count in counts:
        # JAX_NUM_CPU_DEVICES from JAX 0.5.1 on; XLA's own flag in every release of the range.
        flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={count}".strip()
        environment = dict(os.environ, JAX_NUM_CPU_DEVICES=str(count), XLA_FLAGS=flags,
                           **{DEVICES_VARIABLE: str(count)})
        processes.append((count, subprocess.Popen([*_this_command(), *arguments],
                                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                                  env=environment)))
    return Started(list(arguments), processes)


def _this_command() -> list[str]:
    """How this process was started: its `autograder` script, else `python -m autograder`. The same command line
    gives the same import path, so each count's process may be forked by the warm server this one used
    (autograder.warm_start)."""
    script = sys.argv[0] if sys.argv else ""
    if sys.platform != "win32" and os.path.basename(script) == "autograder" and os.path.isfile(script):
        return [sys.executable, script]
    return [sys.executable, "-m", "autograder"]


def stop(started: Started) -> None:
    """End the processes of `started` that are still running (a check that turned out not to need them)."""
    for _, process in started.processes:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()


def merged(started: Started) -> SubmissionResult:
    """The merged result of the processes of `started`, once each has ended; DeviceCheckFailed (the others
    stopped) when one ended without a result."""
    processes = started.processes
    runs = []
    for count, process in processes:
        out, err = process.communicate()
        try:
            result = result_from_json(out.strip().splitlines()[-1])
        except (IndexError, ValueError, KeyError, TypeError):
            stop(started)
            raise DeviceCheckFailed(f"the check with {count} devices exited with {process.returncode}: "
                                    f"{(err.strip().splitlines() or [''])[-1][:300]}") from None
        runs.append((count, result))
    first = runs[0][1]
    checks = merged_outcomes([DeviceRun(count, result.checks) for count, result in runs])
    return dataclasses.replace(first, checks=checks)


def result_to_json(result: SubmissionResult) -> str:
    """`result` as one line for the process that merges the device counts: each check's failure in parts."""
    raw = dataclasses.asdict(result)
    raw["checks"] = [{**dataclasses.asdict(check), "failure": check.failure.to_json() if check.failure else None}
                     for check in result.checks]
    return json.dumps(raw, ensure_ascii=False)


def result_from_json(text: str) -> SubmissionResult:
    """A device count's result, its failures' catalog references read back (the exercise sentences of its
    assignment's records learned first: the package ships no suite catalog)."""
    raw = json.loads(text)
    if isinstance(raw.get("assignment"), str):
        from autograder.student import learned_sentences, recorded

        for record in recorded.read_sentences(raw["assignment"]):
            learned_sentences.learn_record(record)
    raw["checks"] = [CheckResult(**{**check, "failure": Failure.from_json(check["failure"]) if check["failure"]
                                    else None}) for check in raw["checks"]]
    return SubmissionResult(**raw)


def kernel_note(assignment: str, counts: tuple[int, ...]) -> str | None:
    """Said once per kernel and assignment: the checks ran with this kernel's devices, grading uses `counts`."""
    if not counts or assignment in _NOTED:
        return None
    _NOTED.add(assignment)
    import jax

    return messages.text("student.kernel_devices", devices=jax.device_count(),
                         counts=messages.text("student.device_counts_joined",
                                              first=", ".join(map(str, counts[:-1])), last=counts[-1])
                         if len(counts) > 1 else str(counts[0]))
