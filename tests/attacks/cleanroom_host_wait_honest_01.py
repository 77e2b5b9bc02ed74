# The honest twin of cleanroom_host_wait_01.py: the same submission without the primitive that waits.
import jax
import jax.numpy as jnp

def set_element(x, index, value):
    out = x.at[index].set(value)
    return out

def set_diagonal(m, values):
    n = m.shape[0]
    idx = jnp.arange(n)
    return m.at[idx, idx].set(values)

def histogram(indices, num_bins):
    return jnp.zeros(num_bins, jnp.int32).at[indices].add(1)

def swap_rows(m, i, j):
    # Read both rows from the original m, then write both rows in one update.
    return m.at[jnp.array([i, j])].set(m[jnp.array([j, i])])
