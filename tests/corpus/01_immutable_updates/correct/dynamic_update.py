import jax.numpy as jnp
from jax import lax


def set_element(x, index, value):
    index = jnp.where(index < 0, index + x.shape[0], index)
    return lax.dynamic_update_slice(x, jnp.reshape(value, (1,)).astype(x.dtype), (index,))


def swap_rows(m, i, j):
    row_i = lax.dynamic_index_in_dim(m, i, keepdims=False)
    row_j = lax.dynamic_index_in_dim(m, j, keepdims=False)
    return m.at[i].set(row_j).at[j].set(row_i)
