import jax.numpy as jnp


def set_diagonal(m, values):
    eye = jnp.eye(m.shape[0], dtype=bool)
    return jnp.where(eye, jnp.broadcast_to(values, (m.shape[0],))[None, :], m)


def histogram(indices, num_bins):
    return jnp.sum(indices[:, None] == jnp.arange(num_bins)[None, :], axis=0, dtype=jnp.int32)
