import jax.numpy as jnp
import numpy as np


def swap_rows(m, i, j):
    out = np.array(m)  # a mutable NumPy copy, swapped in place, then back to JAX
    out[[i, j]] = out[[j, i]]
    return jnp.asarray(out)
