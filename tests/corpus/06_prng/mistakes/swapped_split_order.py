import jax


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    # Valid JAX, but the children are used the other way round.
    key_noise, key_x = jax.random.split(key)
    x = jax.random.uniform(key_x, (n_samples,))
    y = slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)
    return x, y
