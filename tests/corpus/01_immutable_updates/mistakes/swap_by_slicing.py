import jax.numpy as jnp


def swap_rows(m, i, j):
    lo, hi = min(i, j), max(i, j)  # Python min/max and slices need concrete indices
    return jnp.concatenate([m[:lo], m[hi:hi + 1], m[lo + 1:hi], m[lo:lo + 1], m[hi + 1:]])
