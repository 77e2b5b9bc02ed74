import jax.numpy as jnp


def safe_norm(x, eps=1e-8):
    # The usual way to avoid NaN gradients at 0: add a small eps under the square root.
    return jnp.sqrt(jnp.sum(x ** 2) + eps)
