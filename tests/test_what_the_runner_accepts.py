"""What the clean-room runner accepts, and how a request that waits is judged.

The runner runs programs made of operations that compute values from
values, every value of a size fixed in the module (cleanroom.allowed_operations,
cleanroom.module_walk). Anything else is refused at load with its reason:
an operation that waits for the host, the tokens that order it, one no list
names, a dynamic dimension, a shape-polymorphic program. A runner that holds a
request without using CPU is the student's timeout ("stalled"), decided by its
idle CPU clock long before the wall-clock backstop, and never retried as the
grader's problem.
"""

from __future__ import annotations

import dataclasses
import os
import signal

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.core import Primitive
from jax.interpreters import mlir

from autograder.cleanroom import module_walk
from autograder.cleanroom.allowed_operations import ALLOWED_OPERATIONS, NEVER_RUN
from autograder.cleanroom.programs import ProgramTable
from autograder.protocol import wire_format
from autograder.protocol.limits import ChildLimits
from autograder.protocol.program_failures import ProgramRefused, ProgramRunFailed
from autograder.sandbox.program_runner import ConfinedProgramRunner
from autograder.sandbox.zygote_client import Zygote

MODE = "os" if os.geteuid() == 0 else "process"


def _exported(fn, *shapes):
    return jax.export.export(jax.jit(fn))(*[jax.ShapeDtypeStruct(s, d) for s, d in shapes])


def _inputs(*args):
    return wire_format.encode({"args": list(args), "kwargs": {}}, lambda leaf: leaf if type(leaf) is np.ndarray
                              else None)


@pytest.fixture(scope="module")
def zygote():
    started = Zygote(mode=MODE)
    yield started
    started.close()


@pytest.fixture
def runner(zygote):
    started = ConfinedProgramRunner(MODE, zygote=zygote, limits=ChildLimits(cpu_seconds=120), busy_factor=10.0)
    yield started
    started.close()


def _host_wait_primitive() -> Primitive:
    """A primitive that lowers to stablehlo.infeed: XLA:CPU then blocks for host data that never comes."""
    from jax._src.lib.mlir import ir
    from jax._src.lib.mlir.dialects import hlo

    wait = Primitive("wait_for_host")
    wait.def_abstract_eval(lambda x: x)

    def lower(ctx, x):
        aval = ctx.avals_out[0]
        layout = ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)])])
        infeed = hlo.InfeedOp([ir.RankedTensorType.get(aval.shape, ir.F32Type.get()), hlo.TokenType.get()],
                              hlo.create_token(), infeed_config=ir.StringAttr.get(""), layout=layout)
        return [infeed.results[0]]

    mlir.register_lowering(wait, lower)
    return wait


def test_an_operation_that_waits_for_the_host_is_refused_at_load_with_its_name(runner):
    wait = _host_wait_primitive()
    data = bytes(_exported(lambda x: x + wait.bind(x), ((3,), jnp.float32)).serialize())
    with pytest.raises(ProgramRefused) as refused:
        runner.load(data, cpu_seconds=30)
    assert refused.value.reason == "operation"
    assert "stablehlo.infeed" in refused.value.detail and "stablehlo.create_token" in refused.value.detail


def test_the_allow_list_names_no_operation_that_talks_to_the_host_or_sizes_values_while_running():
    assert not ALLOWED_OPERATIONS & NEVER_RUN
    for name in ("stablehlo.infeed", "stablehlo.outfeed", "stablehlo.send", "stablehlo.recv",
                 "stablehlo.create_token", "stablehlo.after_all", "stablehlo.dynamic_broadcast_in_dim"):
        assert name in NEVER_RUN


def _with_module(text: str, like) -> bytes:
    """`like` (an Exported) carrying the module `text` instead of its own: a program written by hand."""
    from jax._src.lib import _jax
    from jax._src.lib.mlir.dialects import hlo

    module = _jax.mlir.serialize_portable_artifact(text, hlo.get_minimum_version())
    return bytes(dataclasses.replace(like, mlir_module_serialized=module).serialize())


# A 6 x 8 value made from an 8-vector with a broadcast whose result type leaves a dimension unknown.
_HIDDEN_SIZE = """
func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<8xf32>) -> tensor<6x8xf32>
  %1 = stablehlo.convert %0 : (tensor<6x8xf32>) -> tensor<?x8xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %2 = stablehlo.reduce(%1 init: %init) applies stablehlo.add across dimensions = [0]
       : (tensor<?x8xf32>, tensor<f32>) -> tensor<8xf32>
  return %2 : tensor<8xf32>
}
"""

_DYNAMIC_BROADCAST = """
func.func public @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %shape = stablehlo.constant dense<[6, 8]> : tensor<2xi64>
  %0 = stablehlo.dynamic_broadcast_in_dim %arg0, %shape, dims = [1] : (tensor<8xf32>, tensor<2xi64>) -> tensor<6x8xf32>
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %init) applies stablehlo.add across dimensions = [0]
       : (tensor<6x8xf32>, tensor<f32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}
"""


@pytest.mark.parametrize("text, reason", [(_HIDDEN_SIZE, "dynamic_shape"), (_DYNAMIC_BROADCAST, "operation")])
def test_a_value_whose_size_the_module_does_not_fix_is_refused_never_counted_as_empty(runner, text, reason):
    data = _with_module(text, _exported(lambda x: x * 6, ((8,), jnp.float32)))
    with pytest.raises(ProgramRefused) as refused:
        runner.load(data, cpu_seconds=30)
    assert refused.value.reason == reason, refused.value


def test_a_shape_polymorphic_program_is_refused():
    (m,) = jax.export.symbolic_shape("m")
    exported = jax.export.export(jax.jit(lambda x: jnp.outer(x, x).sum(0)))(jax.ShapeDtypeStruct((m,), jnp.float32))
    with pytest.raises(ProgramRefused) as refused:
        ProgramTable().load(bytes(exported.serialize()))
    assert refused.value.reason == "dynamic_shape"


def test_a_jacobian_built_inside_a_nested_polymorphic_export_is_refused():
    def jacobian_inside(x, y):  # the whole m x n Jacobian, in a function exported for symbolic sizes
        m, n = jax.export.symbolic_shape("m, n")
        inner = jax.export.export(
            jax.jit(lambda a, b: jax.jacfwd(lambda a: jnp.outer(a, b))(a).sum(axis=(1, 2))))(
            jax.ShapeDtypeStruct((m,), jnp.float32), jax.ShapeDtypeStruct((n,), jnp.float32))
        return inner.call(x, y)

    exported = _exported(jacobian_inside, ((6,), jnp.float32), ((8,), jnp.float32))
    with pytest.raises(ProgramRefused) as refused:
        module_walk.facts_of(exported)
    assert refused.value.reason == "dynamic_shape"


def test_an_honest_program_with_loops_conditionals_and_randomness_is_accepted():
    def fn(x, key):
        noise = jax.random.normal(key, x.shape)
        total = jax.lax.fori_loop(0, 3, lambda i, c: c + jnp.tanh(x), x)
        return jax.lax.cond(total.sum() > 0, lambda: total + noise, lambda: jnp.sort(total) @ jnp.eye(4))

    exported = jax.export.export(jax.jit(fn))(jax.ShapeDtypeStruct((4,), jnp.float32),
                                              jax.ShapeDtypeStruct((), jax.random.key(0).dtype))
    facts = module_walk.facts_of(exported)
    assert {"while", "case"} <= facts.primitives and facts.largest_value_elements == 16


def _processes_of(uid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/status") as status:
                uids = next(line for line in status if line.startswith("Uid:")).split()[1:]
        except (OSError, StopIteration):
            continue
        if entry.isdigit() and int(uids[0]) == uid:
            found.append(int(entry))
    return found


@pytest.mark.skipif(MODE != "os", reason="the runner has a uid of its own only in the OS sandbox")
def test_a_runner_that_holds_a_request_without_computing_is_the_students_timeout_not_the_graders(runner):
    """A stopped runner uses no CPU and is not waiting for one: as a program that waits for the host."""
    data = bytes(_exported(lambda x: x * 2, ((3,), jnp.float32)).serialize())
    program = runner.load(data, cpu_seconds=30)
    for pid in _processes_of(runner._uid):
        os.kill(pid, signal.SIGSTOP)
    with pytest.raises(ProgramRunFailed) as failed:
        runner.run(program, data, *_inputs(np.ones(3, np.float32)), cpu_seconds=2)
    assert failed.value.kind == "stalled" and failed.value.seconds == 2, failed.value
    assert runner.too_busy == 0 and runner.starts == 1, "judged once, never tried again as the machine's problem"
    out = runner.run(runner.load(data, cpu_seconds=30), data, *_inputs(np.ones(3, np.float32)), cpu_seconds=30)
    np.testing.assert_array_equal(out, np.full(3, 2, np.float32))


@pytest.mark.skipif(MODE != "os", reason="the runner has a uid of its own only in the OS sandbox")
def test_no_request_outlives_the_submissions_deadline(runner, monkeypatch):
    """Past the submission's wall-clock deadline a request the machine was too busy for is not tried again."""
    data = bytes(_exported(lambda x: x * 2, ((3,), jnp.float32)).serialize())
    runner.load(data, cpu_seconds=30)
    for pid in _processes_of(runner._uid):
        os.kill(pid, signal.SIGSTOP)
    monkeypatch.setattr(type(runner._process), "starved", lambda process: True)
    runner.deadline = 0.0  # long past
    with pytest.raises(ProgramRunFailed) as failed:
        runner.load(bytes(_exported(lambda x: x * 3, ((3,), jnp.float32)).serialize()), cpu_seconds=30)
    assert failed.value.kind == "wall_clock" and runner.too_busy == 1 and runner.starts == 1
