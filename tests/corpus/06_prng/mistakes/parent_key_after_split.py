import jax


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    key_x, key_noise = jax.random.split(key)
    x = jax.random.uniform(key, (n_samples,))  # the parent key again, after splitting it
    y = slope * x + intercept + noise_scale * jax.random.normal(key_noise, x.shape)
    return x, y
