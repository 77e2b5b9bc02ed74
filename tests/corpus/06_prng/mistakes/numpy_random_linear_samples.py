import jax.numpy as jnp
import numpy as np


def generate_linear_samples(key, intercept, slope, noise_scale, n_samples):
    # NumPy's global random state: the key is ignored, every call differs.
    x = jnp.asarray(np.random.uniform(size=n_samples), dtype=jnp.float32)
    noise = jnp.asarray(np.random.normal(size=n_samples), dtype=jnp.float32)
    return x, slope * x + intercept + noise_scale * noise
