import jax
import jax.numpy as jnp


def convolve(x, w):
    return x[:-2] * w[0] + x[1:-1] * w[1] + x[2:] * w[2]


def convolve_on_devices(xs, ws):
    # A Python loop over the devices: the values are right, but the rows are stacked in one place.
    return jnp.stack([convolve(xs[k], ws[k]) for k in range(jax.device_count())])
