"""square: lax.cond with no operands picks a sign (closures), a jnp.where inside a branch."""

import jax.numpy as jnp
from jax import lax


def square(x, negate):
    magnitude = jnp.where(x < 0, -x, x)   # |x| via jnp.where, then squared
    return lax.cond(negate, lambda: -(magnitude * magnitude), lambda: jnp.where(True, magnitude * magnitude, 0.0))
