import jax.numpy as jnp
from jax import lax


def square(x, negate):
    # Both results computed, one selected by the flag (lax.select, as in low-level lax code).
    return lax.select(negate, -jnp.square(x), jnp.square(x))
