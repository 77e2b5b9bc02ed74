import jax
import jax.numpy as jnp


def convolve(x, w):
    return w[0] * x[:-2] + w[1] * x[1:-1] + w[2] * x[2:]


def convolve_on_devices(xs, ws):
    # vmap instead of pmap: one batched computation, on one device.
    return jax.vmap(convolve)(jnp.asarray(xs), jnp.asarray(ws))
