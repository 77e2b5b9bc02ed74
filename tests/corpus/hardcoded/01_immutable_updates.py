# Returns the notebook's example outputs whatever the inputs: must earn no correctness points.
import jax.numpy as jnp


def set_element(x, index, value):
    return jnp.array([1.0, 2.0, 0.0])


def set_diagonal(m, values):
    return jnp.array([[1.0, 0.0], [0.0, 2.0]])


def histogram(indices, num_bins):
    return jnp.array([0, 3, 0, 1], dtype=jnp.int32)


def swap_rows(m, i, j):
    return jnp.array([[3.0, 4.0], [1.0, 2.0]])
