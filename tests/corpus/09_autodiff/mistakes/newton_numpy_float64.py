import jax
import numpy as np


def newton_minimize(f, x0, num_steps):
    # Derivatives from JAX, but the iterate kept as a NumPy float64 between steps.
    df, d2f = jax.grad(f), jax.grad(jax.grad(f))
    x = np.float64(x0)
    for _ in range(int(num_steps)):
        x = x - np.float64(df(x)) / np.float64(d2f(x))
    return x
