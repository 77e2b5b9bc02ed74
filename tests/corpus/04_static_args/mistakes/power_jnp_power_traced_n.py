import jax
import jax.numpy as jnp


@jax.jit
def power(x, n):
    # n stays traced: jnp.power accepts it, so there is no loop to unroll and no static argument.
    return jnp.power(x, n)
