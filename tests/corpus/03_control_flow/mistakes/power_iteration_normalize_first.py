import jax.numpy as jnp
from jax import lax


def power_iteration(a, num_iters):
    def body(i, v):
        v = v / jnp.linalg.norm(v)
        return a @ v

    return lax.fori_loop(0, num_iters, body, jnp.ones(a.shape[0], a.dtype) / jnp.sqrt(a.shape[0]))
