# Jittable jnp.where code that computes the wrong thing: "jittable" gives nothing for it.
import jax.numpy as jnp


def sum_of_positive_numbers(x):
    return jnp.ones((), dtype=x.dtype)  # a constant


def selu(x, alpha=1.67, lmbda=1.05):
    return x  # returns its input unchanged


def masked_mean(x, mask):
    return jnp.ones((), dtype=x.dtype)


def safe_log(x):
    return jnp.where(x > 0, x, 0.0)
