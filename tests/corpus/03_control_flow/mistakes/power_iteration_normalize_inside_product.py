import jax.numpy as jnp
from jax import lax


def power_iteration(a, num_iters):
    v0 = jnp.ones(a.shape[0], a.dtype) / jnp.sqrt(a.shape[0])
    return lax.fori_loop(0, num_iters, lambda _, v: a @ (v / jnp.linalg.norm(v)), v0)
