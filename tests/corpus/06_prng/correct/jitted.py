"""Valid solutions that the student jitted themselves (static shape arguments)."""

from functools import partial

import jax
import jax.numpy as jnp


@partial(jax.jit, static_argnames="n_samples")
def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    key_x, key_noise = jax.random.split(key)
    x = jax.random.uniform(key_x, (n_samples,))
    y = slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)
    return x, y


@jax.jit
def dropout(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x, 0.0) / (1 - rate)


@partial(jax.jit, static_argnums=1)
def random_walk(key, num_steps):
    # The cast at another point: cumsum of 2 * b - 1 (already int32), cast at the end.
    b = jax.random.bernoulli(key, 0.5, (num_steps,))
    return jnp.cumsum(2 * b - 1).astype(jnp.int32)
