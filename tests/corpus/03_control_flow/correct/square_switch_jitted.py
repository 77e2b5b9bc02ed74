"""square: the student's own @jax.jit (negate traced) with lax.switch, which lowers to `cond`."""

import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def square(x, negate):
    index = jnp.asarray(negate).astype(jnp.int32)
    return lax.switch(index, [jnp.square, lambda v: -jnp.square(v)], x)
