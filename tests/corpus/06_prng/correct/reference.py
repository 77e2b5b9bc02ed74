"""The reference solution: every recipe of 06_prng line by line."""

import jax
import jax.numpy as jnp


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    key_x, key_noise = jax.random.split(key)
    x = jax.random.uniform(key_x, (n_samples,))
    y = slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)
    return x, y


def init_mlp_params(layer_widths, key):
    keys = jax.random.split(key, len(layer_widths) - 1)
    params = []
    for i, (n_in, n_out) in enumerate(zip(layer_widths[:-1], layer_widths[1:])):
        params.append({
            "weights": jax.random.normal(keys[i], (n_in, n_out)) * jnp.sqrt(2 / n_in),
            "biases": jnp.ones(n_out),
        })
    return params


def dropout(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x / (1 - rate), 0)


def random_walk(key, num_steps):
    steps = 2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32) - 1
    return jnp.cumsum(steps)
