import jax
import jax.numpy as jnp


def _normalize(x, axis):
    return jnp.divide(x, jnp.sum(x, axis=axis, keepdims=True))


# static_argnums alone: jax.jit reads the signature and also treats `axis`
# as static when it is passed by keyword.
normalize = jax.jit(_normalize, static_argnums=(1,))
