"""`autograder check` in several fresh processes at once, each checking a part and sending its result back.

Two things need a check in more than one process: an assignment grading
checks with several device counts (a process's count is fixed when JAX
starts: student.device_checks), and a whole notebook on a machine with two
cores to spare (half the exercises each: student.exercise_halves). Both
start `autograder` again with the same command line plus the part, and the
process that started them merges what they print. A part's process prints
its result as one line of JSON, with the CPU time it used; a part whose
process ends without that line is the kit's failure (CheckProcessFailed),
never the student's.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.catalog import messages
from autograder.check import function_claims
from autograder.check.failure import Failure
from autograder.check.results import CheckResult, SubmissionResult
from autograder.warm_start import client

# Set in each part's process: it checks its part and prints the result as data. Read after a warm server's
# fork (warm_start.identity names it: importing this module there would slow every check's client).
PART_VARIABLE = "AUTOGRADER_CHECK_PART"
DEVICES_VARIABLE = "AUTOGRADER_CHECK_DEVICES"  # and this many devices, in a device count's process
CLAIMS_VARIABLE = "AUTOGRADER_CHECK_CLAIMS"  # and where the parts take exercises (check.function_claims)


class CheckProcessFailed(RuntimeError):
    """A part's process ended without a result: the kit's failure, unless a signal ended it (`ended_by`)."""

    def __init__(self, part: Part, returncode: int | None, last_error_line: str):
        super().__init__(f"{part.describe()} exited with {returncode}: {last_error_line[:300]}")
        self.part, self.returncode = part, returncode

    def ended_by(self, path: str) -> str | None:
        """What to say when a signal ended the part's process: the student's code may have run the machine out
        of memory (the kernel's SIGKILL) or crashed Python (SIGSEGV, SIGABRT), as it would have ended one process
        checking the whole notebook. None otherwise: the kit's own failure, which the caller says."""
        if self.returncode is None or self.returncode >= 0:
            return None
        try:
            name = signal.Signals(-self.returncode).name
        except ValueError:
            name = str(-self.returncode)
        if self.part.devices is not None:
            return messages.text("student.part_ended_devices", devices=self.part.devices, signal=name, path=path)
        return messages.text("student.part_ended_exercises", exercises=", ".join(self.part.exercises), signal=name,
                             path=path)


@dataclasses.dataclass(frozen=True)
class Part:
    """What one process checks: with `devices` CPU devices (None: JAX's default), `exercises` (empty: all the
    command line names). A `claimed` part goes through `exercises` in their order and checks each one no other
    part of its check took first (check.function_claims)."""

    devices: int | None = None
    exercises: tuple[str, ...] = ()
    claimed: bool = False

    def describe(self) -> str:
        """For the kit's failure: which process it was."""
        if self.devices is not None:
            return f"the check with {self.devices} devices"
        return f"the check of {', '.join(self.exercises)}"


@dataclasses.dataclass(frozen=True)
class PartResult:
    part: Part
    result: SubmissionResult
    cpu_seconds: float  # the process's own CPU time, user and system


@dataclasses.dataclass
class Started:
    """The processes of `start`, one per part, with the arguments they were started with."""

    arguments: list[str]
    processes: list[tuple[Part, subprocess.Popen | client.ForkedCheck]]
    claims: Path | None = None  # the folder where claimed parts take their exercises


def in_a_part() -> bool:
    """Whether this process checks one part of a check another process started (and prints data, not a table)."""
    return bool(os.environ.get(PART_VARIABLE))


def start(arguments: list[str], parts: list[Part]) -> Started:
    """`autograder <arguments>` started once per part, each in a fresh process; `results` waits for them."""
    processes = []
    claims = _claims_folder(parts) if any(part.claimed for part in parts) else None
    for number, part in enumerate(parts, start=1):
        environment = dict(os.environ, **{PART_VARIABLE: str(number)})
        if part.claimed and claims is not None:
            environment[CLAIMS_VARIABLE] = str(claims)
        if part.devices is not None:
            # JAX_NUM_CPU_DEVICES from JAX 0.5.1 on; XLA's own flag in every release of the range.
            flags = f"{os.environ.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={part.devices}"
            environment.update(JAX_NUM_CPU_DEVICES=str(part.devices), XLA_FLAGS=flags.strip(),
                               **{DEVICES_VARIABLE: str(part.devices)})
        extra = [token for exercise in part.exercises for token in ("--exercise", exercise)]
        # Forked by the warm server that forked this process, where there is one: as a new process would start,
        # with what a new process would import already imported.
        process = client.forked_check([*arguments, *extra], environment) or subprocess.Popen(
            [*_this_command(), *arguments, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=environment)
        processes.append((part, process))
    return Started(list(arguments), processes, claims)


CLAIMS_PREFIX = "autograder-check-"


def _claims_folder(parts: list[Part]) -> Path:
    """A new folder where claimed parts take their exercises, named after this process; CheckProcessFailed (the
    kit's) if none can be made. A check killed (Ctrl-C, a kill) leaves its folder: the next one removes it."""
    try:
        folder = Path(tempfile.mkdtemp(prefix=f"{CLAIMS_PREFIX}{os.getpid()}-"))
    except OSError as error:
        raise CheckProcessFailed(parts[0], None, f"no folder for the parts' claims: {error}") from None
    _remove_claims_left_behind(folder.parent)
    return folder


def _remove_claims_left_behind(temporary: Path) -> None:
    """Remove this user's claims folders whose check has ended (its process is gone)."""
    try:
        entries = list(os.scandir(temporary))
    except OSError:
        return
    for entry in entries:
        owner = entry.name.removeprefix(CLAIMS_PREFIX).split("-")[0]
        if entry.name.startswith(CLAIMS_PREFIX) and owner.isdigit() and not _alive(int(owner)):
            try:
                mine = entry.stat(follow_symlinks=False).st_uid == os.getuid() and entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if mine:
                shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's: alive, and not ours to judge
    return True


def claims_of_this_process(order: list[str] | None) -> function_claims.FunctionClaims | None:
    """How this part's process takes its exercises, its command line having named them in `order`; None for a
    process that checks all it names."""
    folder = os.environ.get(CLAIMS_VARIABLE)
    if not folder or not order:
        return None
    return function_claims.FunctionClaims(Path(folder), tuple(order), os.environ.get(PART_VARIABLE, ""))


def _this_command() -> list[str]:
    """How this process was started: its `autograder` script, else `python -m autograder`. The same command line
    gives the same import path, so each part's process may be forked by the warm server this one used
    (autograder.warm_start)."""
    script = sys.argv[0] if sys.argv else ""
    if sys.platform != "win32" and os.path.basename(script) == "autograder" and os.path.isfile(script):
        return [sys.executable, script]
    return [sys.executable, "-m", "autograder"]


def results(started: Started) -> list[PartResult]:
    """Each part's result, once every process has ended; CheckProcessFailed (the others stopped) when one ended
    without a result."""
    found = []
    for number, (part, process) in enumerate(started.processes, start=1):
        out, err = process.communicate()
        try:
            found.append(_part_result(part, out.strip().splitlines()[-1]))
        except (IndexError, ValueError, KeyError, TypeError):
            if part.claimed and started.claims is not None:  # what it checked: the exercises it took
                taken = function_claims.taken_by(started.claims, str(number))
                part = dataclasses.replace(part, exercises=tuple(name for name in part.exercises if name in taken))
            stop(started)
            raise CheckProcessFailed(part, process.returncode, (err.strip().splitlines() or [""])[-1]) from None
    _remove_claims(started)
    return found


def stop(started: Started) -> None:
    """End the processes of `started` that are still running (a check that turned out not to need them)."""
    for _, process in started.processes:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    _remove_claims(started)


def _remove_claims(started: Started) -> None:
    if started.claims is not None:
        shutil.rmtree(started.claims, ignore_errors=True)


def result_to_json(result: SubmissionResult) -> str:
    """`result` as one line for the process that merges the parts: each check's failure in parts, and this
    process's CPU time so far (a check's budget is the CPU time of one process: exercise_halves)."""
    raw = dataclasses.asdict(result)
    raw["checks"] = [{**dataclasses.asdict(check), "failure": check.failure.to_json() if check.failure else None}
                     for check in result.checks]
    raw["cpu_seconds"] = time.process_time()
    return json.dumps(raw, ensure_ascii=False)


def result_from_json(text: str) -> SubmissionResult:
    """A part's result, its failures' catalog references read back (the exercise sentences of its assignment's
    records learned first: the package ships no suite catalog)."""
    return _part_result(Part(), text).result


def _part_result(part: Part, text: str) -> PartResult:
    raw = json.loads(text)
    cpu_seconds = float(raw.pop("cpu_seconds", 0.0))
    if isinstance(raw.get("assignment"), str):
        from autograder.student import learned_sentences, recorded

        for record in recorded.read_sentences(raw["assignment"]):
            learned_sentences.learn_record(record)
    raw["checks"] = [CheckResult(**{**check, "failure": Failure.from_json(check["failure"]) if check["failure"]
                                    else None}) for check in raw["checks"]]
    return PartResult(part, SubmissionResult(**raw), cpu_seconds)
