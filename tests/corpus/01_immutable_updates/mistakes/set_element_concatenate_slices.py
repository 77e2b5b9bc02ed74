import jax.numpy as jnp


def set_element(x, index, value):
    # Rebuild the array around the entry: everything before it, the new value, everything after it.
    return jnp.concatenate([x[:index], jnp.array([value], dtype=x.dtype), x[index + 1:]])
