"""power_iteration: lax.while_loop with a step counter instead of lax.fori_loop, normalizing with sqrt(v @ v).

(lax.scan cannot express this loop: its length must be a Python int, and num_iters may be traced.)
"""

import jax.numpy as jnp
from jax import lax


def power_iteration(a, num_iters):
    n = a.shape[0]

    def cond_fun(state):
        i, _ = state
        return i < num_iters

    def body_fun(state):
        i, v = state
        w = a @ v
        return i + 1, w / jnp.sqrt(w @ w)

    _, v = lax.while_loop(cond_fun, body_fun, (0, jnp.full((n,), 1.0 / jnp.sqrt(n), a.dtype)))
    return v
