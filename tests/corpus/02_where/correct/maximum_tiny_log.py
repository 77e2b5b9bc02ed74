import jax.numpy as jnp


def safe_log(x):
    tiny = jnp.finfo(x.dtype).tiny
    return jnp.where(x > 0, jnp.log(jnp.maximum(x, tiny)), 0.0)


def selu(x, alpha=1.67, lmbda=1.05):
    positive = lmbda * jnp.maximum(x, 0)
    negative = lmbda * alpha * (jnp.exp(jnp.minimum(x, 0)) - 1)
    return positive + negative
