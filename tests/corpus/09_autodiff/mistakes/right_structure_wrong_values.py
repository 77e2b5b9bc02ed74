# Jittable, correctly structured code that computes the wrong values: it must fail every property.
import jax
import jax.numpy as jnp
from jax import lax


def hessian(f):
    h = jax.jacfwd(jax.jacrev(f))
    return lambda x: 2 * h(x)


def directional_derivative(f, x, v):
    return jax.jvp(f, (x,), (2 * v,))[1]


def vector_jacobian_product(f, x, u):
    _, pullback = jax.vjp(f, x)
    return pullback(2 * u)[0]


def newton_minimize(f, x0, num_steps):
    first, second = jax.grad(f), jax.grad(jax.grad(f))
    return lax.fori_loop(0, num_steps, lambda i, x: x - 0.5 * first(x) / second(x), x0)


@jax.custom_jvp
def safe_norm(x):
    return 2 * jnp.sqrt(jnp.sum(x ** 2))


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    norm = jnp.sqrt(jnp.sum(x ** 2))
    return 2 * norm, jnp.where(norm > 0, 2 * jnp.dot(x, t) / jnp.where(norm > 0, norm, 1.0), 0.0)
