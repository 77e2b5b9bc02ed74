from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnums=1)
def power_iteration(a, num_iters):
    v = jnp.ones(a.shape[0], a.dtype) / jnp.sqrt(a.shape[0])
    for _ in range(num_iters):
        v = a @ v
        v = v / jnp.linalg.norm(v)
    return v
