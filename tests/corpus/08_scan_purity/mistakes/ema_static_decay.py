from functools import partial

import jax
from jax import lax


@partial(jax.jit, static_argnums=1)
def ema(xs, decay):
    def step(average, x):
        average = decay * average + (1 - decay) * x
        return average, average

    _, averages = lax.scan(step, xs[0], xs)
    return averages
