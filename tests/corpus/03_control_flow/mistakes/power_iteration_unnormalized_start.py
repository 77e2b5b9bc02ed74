import jax.numpy as jnp
from jax import lax


def power_iteration(a, num_iters):
    def body(i, v):
        v = a @ v
        return v / jnp.linalg.norm(v)

    return lax.fori_loop(0, num_iters, body, jnp.ones(a.shape[0], a.dtype))
