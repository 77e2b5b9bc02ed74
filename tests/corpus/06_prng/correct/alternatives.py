"""Different but valid code: same numbers as the recipes, written another way."""

import math

import jax
import jax.numpy as jnp


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    # split(key, 2) indexed instead of unpacked; the terms of y in another order.
    keys = jax.random.split(key, 2)
    x = jax.random.uniform(keys[0], shape=(n_samples,))
    noise = jax.random.normal(keys[1], shape=(n_samples,))
    return x, intercept + noise * noise_scale + x * slope


def init_mlp_params(layer_widths, key):
    # A comprehension over the split keys themselves, with math.sqrt.
    keys = jax.random.split(key, len(layer_widths) - 1)
    return [
        {"biases": jnp.ones((n_out,), dtype=jnp.float32),
         "weights": math.sqrt(2 / n_in) * jax.random.normal(k, (n_in, n_out))}
        for k, n_in, n_out in zip(keys, layer_widths[:-1], layer_widths[1:])
    ]


def dropout(key, x, rate):
    # Multiplying by the mask instead of jnp.where.
    keep_prob = 1.0 - rate
    mask = jax.random.bernoulli(key, p=keep_prob, shape=x.shape)
    return x * mask / keep_prob


def random_walk(key, num_steps):
    # jnp.where(b, 1, -1) gives the same int32 steps as 2 * b - 1.
    flips = jax.random.bernoulli(key, 0.5, shape=(num_steps,))
    return jnp.where(flips, 1, -1).cumsum()
