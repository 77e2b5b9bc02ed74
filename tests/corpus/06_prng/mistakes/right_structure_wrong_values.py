# Every key used once, reproducible and jittable, but not the recipe's numbers:
# "no key reuse", "reproducible", "jittable", "steps are all +1 or -1" give nothing for them.
import jax
import jax.numpy as jnp


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    key_x, key_noise = jax.random.split(key)
    x = jax.random.uniform(key_x, (n_samples,))
    return x, slope * x + intercept + noise_scale * jax.random.uniform(key_noise, x.shape)  # uniform noise


def init_mlp_params(layer_widths, key):
    keys = jax.random.split(key, len(layer_widths) - 1)
    return [{"weights": jax.random.uniform(keys[i], (n_in, n_out)), "biases": jnp.ones(n_out)}
            for i, (n_in, n_out) in enumerate(zip(layer_widths[:-1], layer_widths[1:]))]


def dropout(key, x, rate):
    keep = jax.random.bernoulli(key, 1 - rate, x.shape)
    return jnp.where(keep, x, 0)  # not scaled by 1 / (1 - rate)


def random_walk(key, num_steps):
    steps = 1 - 2 * jax.random.bernoulli(key, 0.5, (num_steps,)).astype(jnp.int32)  # the recipe's mirror image
    return jnp.cumsum(steps)
