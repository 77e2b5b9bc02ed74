import jax
import jax.numpy as jnp
from jax import lax


@jax.jit
def ema(xs, decay):
    # Scan over xs[1:] from m_0 = xs[0], with the update written as m + (1 - decay) * (x - m).
    def step(average, x):
        average = average + (1 - decay) * (x - average)
        return average, average

    _, rest = lax.scan(step, xs[0], xs[1:])
    return jnp.concatenate([xs[:1], rest])
