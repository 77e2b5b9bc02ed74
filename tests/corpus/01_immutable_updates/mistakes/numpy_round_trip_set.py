import jax.numpy as jnp
import numpy as np


def set_element(x, index, value):
    copy = np.array(x)  # breaks under jit: a tracer has no concrete values
    copy[index] = value
    return jnp.asarray(copy)
