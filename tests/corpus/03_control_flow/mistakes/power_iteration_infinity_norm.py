import jax.numpy as jnp
from jax import lax


def power_iteration(a, num_iters):
    n = a.shape[0]

    def body(_, v):
        w = a @ v
        return w / jnp.max(jnp.abs(w))  # scaled by its largest entry, as the textbook power method does

    return lax.fori_loop(0, num_iters, body, jnp.ones(n) / jnp.sqrt(n))
