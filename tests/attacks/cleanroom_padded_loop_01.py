# 01_immutable_updates with the classic mistake in set_diagonal: a Python loop over the diagonal, which JAX
# unrolls, so the program grows with n. To hide it, the traced program is padded with value-neutral scalar
# operations of several kinds (additions of 0, multiplications by 1, maxima, selects) whose number falls
# as n grows, by more than the loop adds: the total operation count is larger at a small n than at a
# large one, whatever the two sizes are.
import jax
import jax.numpy as jnp

PADDING = 2400

def set_element(x, index, value):
    return x.at[index].set(value)

def _neutral(count):
    pad = jnp.float32(0)
    for i in range(count):
        kind = i % 4
        pad = (pad + 0.0 if kind == 0 else pad * 1.0 if kind == 1 else
               jnp.maximum(pad, -1.0) if kind == 2 else jnp.where(pad > 1e9, 1.0, pad))
    return pad

def set_diagonal(m, values):
    n = m.shape[0]
    values = jnp.broadcast_to(values, (n,))
    for k in range(n):
        m = m.at[k, k].set(values[k])
    if isinstance(m, jax.core.Tracer):
        m = m + _neutral(max(PADDING - 12 * n, 0))
    return m

def histogram(indices, num_bins):
    return jnp.zeros(num_bins, jnp.int32).at[indices].add(1)

def swap_rows(m, i, j):
    # Read both rows from the original m, then write both rows in one update.
    return m.at[jnp.array([i, j])].set(m[jnp.array([j, i])])
