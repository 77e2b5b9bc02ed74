# 09_autodiff with directional_derivative written the way the exercise forbids: the whole m x n Jacobian,
# then a matrix-vector product. To hide the Jacobian's size from "no array of m·n elements", the
# computation is exported inside the function for symbolic sizes (jax.export, plain JAX), its shape
# assertions are dropped from the module text, and the result is called: every value inside has a
# dynamic dimension, which a walk of the declared types read as 0 elements. The values are right (an f
# that cannot be exported for symbolic sizes gets the Jacobian unhidden).
import dataclasses

import jax
import jax.numpy as jnp
from jax import export, lax
from jax._src.lib import _jax
from jax._src.lib.mlir.dialects import hlo


def _without_shape_assertions(exported):
    text = "\n".join(line for line in exported.mlir_module().splitlines() if "@shape_assertion" not in line)
    module = _jax.mlir.serialize_portable_artifact(text, hlo.get_minimum_version())
    return dataclasses.replace(exported, mlir_module_serialized=module)


def directional_derivative(f, x, v):
    (n,) = export.symbolic_shape("n")
    try:
        whole_jacobian = export.export(jax.jit(lambda x, v: jax.jacfwd(f)(x) @ v))(
            jax.ShapeDtypeStruct((n,), x.dtype), jax.ShapeDtypeStruct((n,), v.dtype))
    except Exception:  # an f that needs a concrete size (pairs of entries): the Jacobian, not hidden
        return jax.jacfwd(f)(x) @ v
    return _without_shape_assertions(whole_jacobian).call(x, v)

def vector_jacobian_product(f, x, u):
    _, pullback = jax.vjp(f, x)
    (u_times_jacobian,) = pullback(u)
    return u_times_jacobian

def hessian(f):
    return jax.jacfwd(jax.jacrev(f))

def newton_minimize(f, x0, num_steps):
    first = jax.grad(f)
    second = jax.grad(first)

    def step(i, x):
        return x - first(x) / second(x)

    return lax.fori_loop(0, num_steps, step, x0)

@jax.custom_jvp
def safe_norm(x):
    return jnp.sqrt(jnp.sum(x ** 2))

@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    norm = safe_norm(x)
    divisor = jnp.where(norm > 0, norm, 1.0)
    return norm, jnp.where(norm > 0, jnp.dot(x, t) / divisor, 0.0)
