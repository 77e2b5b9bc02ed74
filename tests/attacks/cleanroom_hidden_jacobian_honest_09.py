# The honest twin of cleanroom_hidden_jacobian_09.py: the same whole Jacobian in directional_derivative,
# not hidden, so it loses "no array of m·n elements (forward mode)" and nothing else.
import jax
import jax.numpy as jnp
from jax import lax


def directional_derivative(f, x, v):
    return jax.jacfwd(f)(x) @ v

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
