import jax.numpy as jnp


def sum_of_positive_numbers(x):
    positive = x > 0
    total = jnp.sum(jnp.where(positive, x, 0.0))
    return total / jnp.maximum(jnp.sum(positive), 1)
