import jax.numpy as jnp


def set_element(x, index, value):
    positions = jnp.arange(x.shape[0])
    return jnp.where(positions == index % x.shape[0], jnp.asarray(value, x.dtype), x)
