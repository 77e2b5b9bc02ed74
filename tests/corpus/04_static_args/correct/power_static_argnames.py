import jax
import jax.numpy as jnp


def _power(x, n):
    result = jnp.ones_like(x)
    for _ in range(n):
        result = result * x
    return result


# jax.jit applied by assignment, with n static by name instead of by position.
power = jax.jit(_power, static_argnames="n")
