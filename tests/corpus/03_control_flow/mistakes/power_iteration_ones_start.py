import jax.numpy as jnp
from jax import lax


def power_iteration(a, num_iters):
    def body(_, v):
        w = a @ v
        return w / jnp.linalg.norm(w)

    return lax.fori_loop(0, num_iters, body, jnp.ones(a.shape[0], a.dtype))
