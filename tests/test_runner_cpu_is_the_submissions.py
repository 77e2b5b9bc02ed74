"""The clean-room runner's CPU time is the submission's: charged to its budget like its child's.

A submission's jitted programs run in the runner (cleanroom.runner), outside
its child, under a per-request CPU-time limit. Each request's CPU time, or
its whole limit when it ran out of it, is charged to the budget of the
submission being graded (`ConfinedProgramRunner.budget`, its sandbox
transport), so programs that each stay under the per-request limit cannot
spend more than `submission_seconds` in all: the submission's next request
to its child fails as over budget. Before, the runner's time counted nowhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.protocol import wire_format
from autograder.protocol.errors import ErrorKind, TransportFailure
from autograder.protocol.limits import ChildLimits
from autograder.protocol.program_failures import ProgramRunFailed
from autograder.protocol.requests import Call
from autograder.sandbox.parent import SandboxTransport
from autograder.sandbox.program_runner import ConfinedProgramRunner
from autograder.sandbox.zygote_client import Zygote

MODE = "os" if os.geteuid() == 0 else "process"


class Budget:
    """What a sandbox transport is to the runner: where CPU seconds are charged."""

    def __init__(self):
        self.charged: list[float] = []

    def charge(self, seconds: float) -> None:
        self.charged.append(seconds)


def _program(fn, *shapes) -> bytes:
    return bytes(jax.export.export(jax.jit(fn))(*[jax.ShapeDtypeStruct(s, d) for s, d in shapes]).serialize())


def _inputs(*args):
    return wire_format.encode({"args": list(args), "kwargs": {}}, lambda leaf: np.asarray(leaf))


@pytest.fixture(scope="module")
def zygote():
    started = Zygote(mode=MODE)
    yield started
    started.close()


@pytest.fixture
def runner(zygote):
    started = ConfinedProgramRunner(MODE, zygote=zygote, limits=ChildLimits(cpu_seconds=120))
    yield started
    started.close()


def _matmuls(x, times):
    return jax.lax.fori_loop(0, times, lambda _, m: jnp.tanh(m @ m), x)


MATMULS = _program(_matmuls, ((384, 384), jnp.float32), ((), jnp.int32))


def _run_matmuls(runner, times: int) -> None:
    program = runner.load(MATMULS, cpu_seconds=30)
    skeleton, arrays = _inputs(np.full((384, 384), 0.01, np.float32), np.int32(times))
    runner.run(program, MATMULS, skeleton, arrays, cpu_seconds=30)


def test_what_a_request_took_is_charged_to_the_submission_being_graded(runner):
    budget = Budget()
    runner.budget = budget
    started = os.times()
    _run_matmuls(runner, 1)  # parsed and compiled: charged too
    assert budget.charged and all(seconds > 0 for seconds in budget.charged), budget.charged
    before = sum(budget.charged)
    _run_matmuls(runner, 1)
    cheap = sum(budget.charged) - before
    _run_matmuls(runner, 400)  # about 45 GFLOP: a good part of a second of CPU at least
    expensive = sum(budget.charged) - before - cheap
    assert expensive > 0.2 and expensive > 10 * cheap, budget.charged
    assert runner.cpu_charged == pytest.approx(sum(budget.charged))
    # Not this process's time: the runner's, in its own confined process.
    ours = os.times().user - started.user
    assert ours < expensive, (ours, expensive)


def test_a_request_that_runs_out_of_its_limit_is_charged_all_of_it(runner):
    budget = Budget()
    runner.budget = budget
    endless = _program(lambda x: jax.lax.while_loop(lambda c: c[0] >= 0, lambda c: (c[0] + 0, c[1] + 1.0),
                                                    (x, jnp.float32(0)))[1], ((), jnp.int32))
    program = runner.load(endless, cpu_seconds=30)
    skeleton, arrays = _inputs(np.int32(1))
    with pytest.raises(ProgramRunFailed) as failed:
        runner.run(program, endless, skeleton, arrays, cpu_seconds=2)
    assert failed.value.kind == "cpu_limit"
    assert budget.charged[-1] == 2


def test_without_a_submission_being_graded_nothing_is_charged(runner):
    _run_matmuls(runner, 50)
    assert runner.cpu_charged == 0


def test_a_transport_charged_its_whole_budget_refuses_its_next_request(config, tmp_path):
    """The runner's seconds count as the child's do: once spent, the submission gets no further checks."""
    source = tmp_path / "submission.py"
    source.write_text("def f(x):\n    return x\n")
    transport = SandboxTransport(Path(source), config.limits, mode="process")
    transport.charge(config.limits.submission_seconds - 1)
    assert transport.cpu_spent == config.limits.submission_seconds - 1
    transport.charge(1)
    with pytest.raises(TransportFailure) as failed:
        transport.request(Call(function="f", args_skeleton={"args": [], "kwargs": {}}), [])
    assert failed.value.kind is ErrorKind.BUDGET
    transport.close()
