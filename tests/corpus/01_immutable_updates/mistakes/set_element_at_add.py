import jax.numpy as jnp


def set_element(x, index, value):
    # "update the entry": accumulate into it
    return x.at[index].add(jnp.asarray(value, x.dtype))
