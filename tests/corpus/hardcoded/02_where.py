# Returns the notebook's example outputs whatever the inputs: must earn no correctness points.
import jax.numpy as jnp


def sum_of_positive_numbers(x):
    return jnp.float32(3.0)


def selu(x, alpha=1.67, lmbda=1.05):
    return jnp.array([1.05, 0.0])


def masked_mean(x, mask):
    return jnp.float32(2.0)


def safe_log(x):
    return jnp.array([0.0, 0.0])
