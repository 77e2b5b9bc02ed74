"""The kit's harnesses compute a derivative of a derivative under jax.jit, and as it is where that cannot trace.

child/harnesses: a Hessian run eagerly compiles one small program per
operation; under jax.jit, one. A student's function that cannot be traced
still gets its values judged (its jittability is a check of its own). Each
assignment declares its harnesses in a module of its own,
child/harnesses_<assignment>.py, found by name: in the sandbox child's view
and in the student package, with no shared file edited.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from conftest import REPO

from autograder.child import harnesses, harnesses_09_autodiff


def _traced_calls(build):
    """How many times the function `build` returns is traced, per call through the harness."""
    traced = []

    def returned(f):
        def hessian_of_f(x):
            traced.append(isinstance(x, jax.core.Tracer))
            return jax.hessian(f)(x)
        return hessian_of_f

    return traced, build(returned)


def test_a_hessian_that_can_be_traced_runs_as_one_program():
    traced, call = _traced_calls(harnesses_09_autodiff.returned_function)
    x = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    result = call("rosenbrock", x)
    assert traced == [True], "called eagerly, not under jax.jit"
    expected = jax.hessian(harnesses_09_autodiff._functions_to_differentiate()["rosenbrock"])(jnp.asarray(x))
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


def test_a_hessian_that_cannot_be_traced_is_called_as_it_is_with_the_same_values():
    def hessian(f):
        def returned(x):
            if float(x[0]) > 100:  # Python control flow on a value: no jax.jit
                raise AssertionError("not reached")
            return jax.hessian(f)(x)
        return returned

    x = np.linspace(-1.0, 1.0, 5, dtype=np.float32)
    result = harnesses.wrap("returned_function", "hessian", hessian)("log_sum_exp", x)
    expected = jax.hessian(jax.nn.logsumexp)(jnp.asarray(x))
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)


def test_a_stub_raises_its_own_error_through_the_harness():
    def per_example_grads(loss, params, xs, ys):
        raise NotImplementedError("per_example_grads is not implemented yet")

    call = harnesses.wrap("with_loss", "per_example_grads", per_example_grads)
    params = {"w": np.ones(3, np.float32), "b": np.float32(0.0)}
    try:
        call("squared_error", params, np.ones((4, 3), np.float32), np.ones(4, np.float32))
    except NotImplementedError as error:
        assert "not implemented yet" in str(error)
    else:
        raise AssertionError("the stub's NotImplementedError did not come through")


def test_an_assignments_harnesses_are_found_by_the_name_of_its_own_module(tmp_path, monkeypatch):
    """A module child/harnesses_<assignment>.py is all a new assignment's harness needs: no shared file lists it."""
    from autograder import child

    (tmp_path / "harnesses_99_added.py").write_text(
        "from autograder.child.harness_types import Harness\n\n"
        "def doubled(function):\n    return lambda x: 2 * function(x)\n\n"
        "HARNESSES = {'doubled': Harness(frozenset({'added_function'}), doubled, '2 * {function}({arguments})')}\n",
        encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(child, "__path__", [*child.__path__, str(tmp_path)])
    monkeypatch.delitem(__import__("sys").modules, "autograder.child.harnesses_99_added", raising=False)
    declared = harnesses._declared()
    assert set(declared) == {*harnesses.HARNESSES, "doubled"}
    assert declared["doubled"].build(lambda x: x + 1)(3) == 8


def test_every_assignments_harnesses_are_in_the_sandbox_childs_view_and_the_student_package():
    from autograder.sandbox import os_isolation
    from autograder.student import wheel

    modules = sorted((REPO / "autograder" / "child").glob("harnesses_*.py"))
    assert [path.stem for path in modules] == ["harnesses_07_vmap_pytrees", "harnesses_08_scan_purity",
                                              "harnesses_09_autodiff"]
    view = os_isolation.child_side_files()
    assert all(path.resolve() in {file.resolve() for file in view} for path in modules)
    assert "child/harness_types.py" in wheel.KIT_MODULES
    files = {f"autograder/{module}": b"" for module in wheel.KIT_MODULES}
    files.update({f"autograder/child/{path.name}": path.read_bytes() for path in modules})
    wheel.check_imports(files)  # what the harness modules import is shipped


def _directional_derivative(traced: list):
    def directional_derivative(f, x, v):
        traced.append(isinstance(x, jax.core.Tracer))
        return jax.jvp(f, (x,), (v,))[1]
    return directional_derivative


def test_a_derivative_of_the_graders_f_called_on_values_runs_as_one_program():
    traced: list = []
    call = harnesses.wrap("with_f", "directional_derivative", _directional_derivative(traced))
    x, v = np.linspace(-1.0, 1.0, 6, dtype=np.float32), np.ones(6, np.float32)
    result = call("sin_products", x, v)
    assert traced == [True], "called eagerly, not under jax.jit"
    f = harnesses_09_autodiff._functions_to_differentiate()["sin_products"]
    np.testing.assert_allclose(result, jax.jvp(f, (jnp.asarray(x),), (jnp.asarray(v),))[1], rtol=1e-5, atol=1e-6)


def test_a_newton_loop_over_a_python_int_is_called_as_it_is_with_the_same_values():
    def newton_minimize(f, x0, num_steps):
        df, d2f = jax.grad(f), jax.grad(jax.grad(f))
        x = x0
        for _ in range(num_steps):  # a Python loop: cannot run with num_steps traced
            x = x - df(x) / d2f(x)
        return x

    call = harnesses.wrap("with_f", "newton_minimize", newton_minimize)
    result = call("quartic", np.float32(1.5), 3)
    expected = newton_minimize(harnesses_09_autodiff._functions_to_differentiate()["quartic"], np.float32(1.5), 3)
    np.testing.assert_allclose(result, expected, rtol=1e-6)


def test_inside_the_kits_own_trace_the_students_function_is_traced_as_it_is():
    """A jit check exports the student's function's own program, and a trace count counts its own traces: no
    jax.jit of the harness's inside them."""
    traced: list = []
    call = harnesses.wrap("with_f", "directional_derivative", _directional_derivative(traced))
    x, v = np.linspace(-1.0, 1.0, 6, dtype=np.float32), np.ones(6, np.float32)
    jaxpr = jax.make_jaxpr(lambda x, v: call("sin_products", x, v))(x, v)
    assert traced == [True]
    assert not {equation.primitive.name for equation in jaxpr.jaxpr.eqns} & {"pjit", "jit"}
