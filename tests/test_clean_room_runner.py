"""The clean-room runner: exported programs are parsed and run in a confined process, never in the grader.

Each test builds a program the way a student's function would export it
(jax.export of a jitted function), hands its bytes to a real runner forked
by a real zygote in the OS sandbox, and checks what comes back: facts read
from parsed operations, refusals with their reason, values, and every way a
request can fail costing only that request.
"""

from __future__ import annotations

import os
import signal
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from autograder.cleanroom import module_walk
from autograder.protocol import wire_format
from autograder.protocol.limits import ChildLimits
from autograder.protocol.program_failures import ProgramRefused, ProgramRunFailed
from autograder.sandbox.program_runner import ConfinedProgramRunner
from autograder.sandbox.zygote_client import Zygote

MODE = "os" if os.geteuid() == 0 else "process"


def _exported(fn, *shapes):
    return jax.export.export(jax.jit(fn))(*[jax.ShapeDtypeStruct(s, d) for s, d in shapes])


def _program(fn, *shapes) -> bytes:
    return bytes(_exported(fn, *shapes).serialize())


def _inputs(*args):
    return wire_format.encode({"args": list(args), "kwargs": {}}, lambda leaf: leaf if type(leaf) is np.ndarray
                              else np.asarray(leaf) if isinstance(leaf, np.generic) else None)


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


def _python_loop_set_diagonal(n):
    def set_diagonal(x, value):
        with jax.named_scope(" ".join(["stablehlo.pad"] * 40)):  # fake operation names in debug locations
            x = x + 0
        for i in range(n):
            x = x.at[i, i].set(value)
        return x
    return set_diagonal


def test_structure_facts_come_from_parsed_operations_not_from_debug_text():
    small = module_walk.facts_of(_exported(_python_loop_set_diagonal(3), ((3, 3), jnp.float32), ((), jnp.float32)))
    large = module_walk.facts_of(_exported(_python_loop_set_diagonal(6), ((6, 6), jnp.float32), ((), jnp.float32)))
    assert "pad" not in small.primitives
    assert large.equation_count > small.equation_count  # the unrolled loop shows, whatever the names say


def test_facts_name_loops_calls_and_the_largest_intermediate():
    def fn(x, n):
        outer = x[:, None] * x[None, :]  # an n*n intermediate
        return jax.lax.fori_loop(0, n, lambda i, c: c + 1.0, outer.sum())

    facts = module_walk.facts_of(_exported(fn, ((50,), jnp.float32), ((), jnp.int32)))
    assert {"while", "scan"} <= facts.primitives
    assert facts.largest_value_elements == 2500
    assert facts.custom_call_targets == frozenset()


def test_values_of_a_program_run_in_the_runner(runner):
    data = _program(lambda x, k: x * 2 + jax.random.uniform(k, x.shape), ((4,), jnp.float32),
                    ((), jax.random.key(0).dtype))
    program = runner.load(data, cpu_seconds=30)
    assert "rng_bit_generator" in program.facts.primitives or "threefry2x32" in "".join(program.facts.primitives) \
        or program.facts.equation_count > 3
    x = np.arange(4, dtype=np.float32)
    key_data = np.asarray(jax.random.key_data(jax.random.key(7)))
    skeleton, arrays = wire_format.encode({"args": [x, np.zeros(0)], "kwargs": {}},
                                          lambda leaf: leaf if type(leaf) is np.ndarray else None)
    skeleton["__dict__"]["args"][1] = {"__key__": 1, "impl": "threefry2x32"}
    arrays[1] = key_data
    out = runner.run(program, data, skeleton, arrays, cpu_seconds=30)
    expected = x * 2 + np.asarray(jax.random.uniform(jax.random.key(7), (4,)))
    np.testing.assert_allclose(out, expected, rtol=1e-6)


def test_every_custom_call_is_refused_even_on_jaxs_stable_list(runner):
    def fn(x):  # LAPACK's LU on a large operand, with a tiny declared result
        return jax.ffi.ffi_call("lapack_sgetrf_ffi", jax.ShapeDtypeStruct((1, 1), jnp.float32),
                                vmap_method="sequential")(x)

    data = _program(fn, ((64, 64), jnp.float32))
    with pytest.raises(ProgramRefused) as refused:
        runner.load(data, cpu_seconds=30)
    assert refused.value.reason == "custom_call" and "lapack_sgetrf_ffi" in refused.value.detail


def _with_derivative(fn, *shapes) -> bytes:
    return bytes(_exported(fn, *shapes).serialize(vjp_order=1))


def test_a_gradient_is_computed_in_the_runner_from_the_derivative_program_exported_with_it(runner):
    @jax.custom_jvp
    def safe_norm(x):
        return jnp.sqrt(jnp.sum(x ** 2))

    @safe_norm.defjvp
    def _(primals, tangents):
        (x,), (t,) = primals, tangents
        norm = safe_norm(x)
        return norm, jnp.where(norm > 0, jnp.dot(x, t) / jnp.where(norm > 0, norm, 1.0), 0.0)

    data = _with_derivative(safe_norm, ((3,), jnp.float32))
    program = runner.load(data, cpu_seconds=30)
    x = np.array([3.0, 0.0, 4.0], np.float32)
    np.testing.assert_allclose(runner.run(program, data, *_inputs(x), cpu_seconds=30, gradient=True), x / 5)
    zeros = np.zeros(3, np.float32)
    np.testing.assert_array_equal(runner.run(program, data, *_inputs(zeros), cpu_seconds=30, gradient=True), zeros)


def test_a_custom_call_in_the_derivative_program_is_refused_like_one_in_the_program(runner):
    @jax.custom_jvp
    def innocent(x):
        return jnp.sum(x)

    @innocent.defjvp
    def _(primals, tangents):  # the rule calls LAPACK: only the derivative program holds the custom call
        (x,), (t,) = primals, tangents
        lu = jax.ffi.ffi_call("lapack_sgetrf_ffi", jax.ShapeDtypeStruct((1, 1), jnp.float32),
                              vmap_method="sequential")(x)
        return innocent(x), lu[0, 0] * jnp.sum(t)

    assert "custom_call" not in module_walk.facts_of(_exported(innocent, ((8, 8), jnp.float32))).primitives
    with pytest.raises(ProgramRefused) as refused:
        runner.load(_with_derivative(innocent, ((8, 8), jnp.float32)), cpu_seconds=30)
    assert refused.value.reason == "custom_call" and "lapack_sgetrf_ffi" in refused.value.detail


def test_an_endless_loop_costs_its_cpu_limit_and_the_next_request_gets_a_fresh_runner(runner):
    endless = _program(lambda x: jax.lax.while_loop(lambda c: c[0] >= 0, lambda c: (c[0] + 0, c[1] + 1.0),
                                                    (x.sum().astype(jnp.int32) * 0, x))[1], ((3,), jnp.float32))
    program = runner.load(endless, cpu_seconds=30)
    skeleton, arrays = _inputs(np.ones(3, np.float32))
    with pytest.raises(ProgramRunFailed) as failed:
        runner.run(program, endless, skeleton, arrays, cpu_seconds=2)
    assert failed.value.kind == "cpu_limit" and failed.value.seconds == 2
    starts = runner.starts
    doubled = _program(lambda x: x * 2, ((3,), jnp.float32))
    out = runner.run(runner.load(doubled, cpu_seconds=30), doubled, skeleton, arrays, cpu_seconds=30)
    np.testing.assert_array_equal(out, np.full(3, 2, np.float32))
    assert runner.starts == starts + 1


@pytest.mark.parametrize("data, reason", [(b"not a program at all", "unreadable"),
                                          (b"\x00" * ((64 << 20) + 1), "too_large")])
def test_malformed_or_oversized_programs_are_refused(runner, data, reason):
    with pytest.raises(ProgramRefused) as refused:
        runner.load(data, cpu_seconds=30)
    assert refused.value.reason == reason


def test_inputs_that_disagree_with_the_declared_shapes_fail_that_request_only(runner):
    data = _program(lambda x: x + 1, ((3,), jnp.float32))
    program = runner.load(data, cpu_seconds=30)
    skeleton, arrays = _inputs(np.ones(5, np.float32))
    with pytest.raises(ProgramRunFailed) as failed:
        runner.run(program, data, skeleton, arrays, cpu_seconds=30)
    assert failed.value.kind == "raised" and failed.value.error_type
    skeleton, arrays = _inputs(np.ones(3, np.float32))
    np.testing.assert_array_equal(runner.run(program, data, skeleton, arrays, cpu_seconds=30), np.full(3, 2.0))


def _kill_processes_of(uid: int) -> int:
    """SIGKILL every process running as `uid` (the runner's own uid: nothing else has it)."""
    killed = 0
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/status") as status:
                uids = next(line for line in status if line.startswith("Uid:")).split()[1:]
        except (OSError, StopIteration):
            continue
        if entry.isdigit() and int(uids[0]) == uid:
            os.kill(int(entry), signal.SIGKILL)
            killed += 1
    return killed


@pytest.mark.skipif(MODE != "os", reason="the runner has a uid of its own only in the OS sandbox")
def test_a_runner_that_dies_mid_request_costs_that_request_and_is_replaced(runner):
    endless = _program(lambda x: jax.lax.while_loop(lambda c: c[0] >= 0, lambda c: (c[0] + 0, c[1] + 1.0),
                                                    (x.sum().astype(jnp.int32) * 0, x))[1], ((3,), jnp.float32))
    program = runner.load(endless, cpu_seconds=30)
    killer = threading.Timer(1.0, lambda: _kill_processes_of(runner._uid))
    killer.start()
    skeleton, arrays = _inputs(np.ones(3, np.float32))
    with pytest.raises(ProgramRunFailed) as failed:
        runner.run(program, endless, skeleton, arrays, cpu_seconds=60)
    killer.join()
    assert failed.value.kind == "crashed", failed.value
    doubled = _program(lambda x: x * 2, ((3,), jnp.float32))
    out = runner.run(runner.load(doubled, cpu_seconds=30), doubled, skeleton, arrays, cpu_seconds=30)
    np.testing.assert_array_equal(out, np.full(3, 2, np.float32))


def test_a_request_the_machine_was_too_busy_for_is_tried_again_then_counted_as_the_graders_problem(runner,
                                                                                                  monkeypatch):
    data = _program(lambda x: x + 1, ((2,), jnp.float32))
    real_exchange, busy = runner._exchange, []

    def backstop_runs_out_first(*request):
        if len(busy) < budget:
            busy.append(request)
            raise runner._failed("wall_clock", seconds=1.0)
        return real_exchange(*request)

    monkeypatch.setattr(runner, "_exchange", backstop_runs_out_first)
    budget = 1  # once: the second try, in a fresh runner, answers
    assert runner.load(data, cpu_seconds=30).handle
    assert runner.too_busy == 0 and len(busy) == 1
    budget = 3  # twice more: the request fails, and the grader's problem is counted
    with pytest.raises(ProgramRunFailed) as failed:
        runner.load(data, cpu_seconds=30)
    assert failed.value.kind == "wall_clock" and runner.too_busy == 1


def test_a_runner_per_device_count_is_kept_while_submissions_switch_between_counts(runner):
    # 10_parallel is graded at 2 and at 4 devices: every submission switches twice.
    data = _program(lambda x: x * 2, ((4,), jnp.float32))
    x = np.arange(4, dtype=np.float32)
    for devices in (2, 4, 2, 4):
        runner.use_devices(devices)
        program = runner.load(data, cpu_seconds=30)
        np.testing.assert_allclose(runner.run(program, data, *_inputs(x), cpu_seconds=30), x * 2)
    assert runner.starts == 2, f"one runner per device count, started once each; started {runner.starts}"
    kept = [state["_process"] for state in runner._parked.values() if state["_process"] is not None]
    runner.close()
    assert kept and all(process.exit_status(timeout=5) is not None for process in kept), "close() ends them too"


def test_the_same_program_bytes_are_parsed_once_per_runner(monkeypatch):
    # Students who write the same code export the same bytes; the facts depend on the bytes alone.
    from autograder.cleanroom import programs

    parsed = []
    real_facts = programs._facts
    monkeypatch.setattr(programs, "_facts", lambda exported: parsed.append(1) or real_facts(exported))
    table = programs.ProgramTable()
    doubled, tripled = _program(lambda x: x * 2, ((3,), jnp.float32)), _program(lambda x: x * 3, ((3,), jnp.float32))
    first = table.load(doubled)
    assert table.load(doubled) == first and len(parsed) == 1, "the same bytes: the same handle and facts, one parse"
    assert table.load(tripled)[0] != first[0] and len(parsed) == 2, "other bytes are parsed"
    np.testing.assert_array_equal(table.run(first[0], [np.ones(3, np.float32)], {}), np.full(3, 2.0))


def test_a_refused_program_is_refused_every_time_it_is_loaded():
    from autograder.cleanroom import programs

    table = programs.ProgramTable()
    for _ in range(2):
        with pytest.raises(ProgramRefused) as refused:
            table.load(b"not a program at all")
        assert refused.value.reason == "unreadable"


@pytest.mark.skipif(MODE != "os", reason="the runner has a uid of its own only in the OS sandbox")
def test_a_runner_that_died_between_requests_is_replaced_without_asking_the_zygote(runner, monkeypatch):
    doubled = _program(lambda x: x * 2, ((3,), jnp.float32))
    runner.load(doubled, cpu_seconds=30)
    asked = []
    real_ask = runner.zygote._ask
    monkeypatch.setattr(runner.zygote, "_ask",
                        lambda request, *rest, **kw: asked.append(request["op"]) or real_ask(request, *rest, **kw))
    assert _kill_processes_of(runner._uid) > 0
    for _ in range(200):  # the kernel closes the dead runner's end of the pipe as it reaps it
        if not runner._alive():
            break
        threading.Event().wait(0.01)
    program = runner.load(doubled, cpu_seconds=30)
    out = runner.run(program, doubled, *_inputs(np.ones(3, np.float32)), cpu_seconds=30)
    np.testing.assert_array_equal(out, np.full(3, 2, np.float32))
    assert runner.starts == 2, "a fresh runner answered"
    assert "status" not in asked, f"liveness came from the pipe, not from the zygote: asked {asked}"
