import jax


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    # The same key for both draws: the noise becomes a function of x.
    x = jax.random.uniform(key, (n_samples,))
    y = slope * x + intercept + noise_scale * jax.random.normal(key, x.shape)
    return x, y
