import jax.numpy as jnp
from jax import lax


def ema(xs, decay):
    def step(average, x):
        average = decay * average + (1 - decay) * x
        return average, average

    _, averages = lax.scan(step, jnp.zeros((), xs.dtype), xs)  # m_0 should be xs[0]
    return averages
