# The honest twin of cleanroom_kind_padded_loop_01.py: the same Python loop over the diagonal, without the
# padding, so it loses "no Python loop over the diagonal" and nothing else.
import jax.numpy as jnp

def set_element(x, index, value):
    return x.at[index].set(value)

def set_diagonal(m, values):
    n = m.shape[0]
    values = jnp.broadcast_to(values, (n,))
    idx = jnp.arange(n)
    for k in range(n):
        m = m.at[idx[k], idx[k]].set(values[k])
    return m

def histogram(indices, num_bins):
    return jnp.zeros(num_bins, jnp.int32).at[indices].add(1)

def swap_rows(m, i, j):
    # Read both rows from the original m, then write both rows in one update.
    return m.at[jnp.array([i, j])].set(m[jnp.array([j, i])])
