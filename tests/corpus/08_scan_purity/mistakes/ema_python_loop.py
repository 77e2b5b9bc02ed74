import jax.numpy as jnp


def ema(xs, decay):
    averages = [xs[0]]
    for x in xs[1:]:
        averages.append(decay * averages[-1] + (1 - decay) * x)
    return jnp.stack(averages)
