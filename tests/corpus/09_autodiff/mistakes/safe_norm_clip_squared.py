import jax
import jax.numpy as jnp


@jax.custom_jvp
def safe_norm(x):
    squared = jnp.sum(jnp.square(x))
    return jnp.sqrt(squared.clip(1e-6))  # clipped so that sqrt never sees 0


@safe_norm.defjvp
def safe_norm_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    value = safe_norm(x)
    return value, jnp.vdot(x, x_dot) / value
