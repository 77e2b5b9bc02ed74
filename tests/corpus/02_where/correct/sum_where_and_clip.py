import jax.numpy as jnp


def sum_of_positive_numbers(x):
    return jnp.sum(x, where=x > 0)


def masked_mean(x, mask):
    count = mask.sum()
    total = jnp.where(mask, x, 0.0).sum()
    return jnp.where(count > 0, total / jnp.where(count > 0, count, 1), 0.0)


def safe_log(x):
    positive = x > 0
    return jnp.log(jnp.where(positive, x, 1.0)) * positive
