import jax.numpy as jnp
from jax import lax


def ema(xs, decay):
    def step(average, x):
        average = (1.0 - decay) * average + decay * x
        return average, average

    return lax.scan(step, jnp.zeros_like(xs[0]), xs)[1]
