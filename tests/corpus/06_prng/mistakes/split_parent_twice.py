import jax


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    # The numbers equal the recipe's, but the parent key is split twice.
    x = jax.random.uniform(jax.random.split(key)[0], (n_samples,))
    noise = jax.random.normal(jax.random.split(key)[1], x.shape)
    return x, slope * x + intercept + noise_scale * noise
