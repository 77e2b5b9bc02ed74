import jax
import jax.numpy as jnp


@jax.custom_jvp
def safe_norm(x, min_norm=1e-3):
    # A norm bounded below by min_norm, as optimisation libraries write it.
    return jnp.maximum(jnp.linalg.norm(x), min_norm)


@safe_norm.defjvp
def _jvp(primals, tangents):
    x, min_norm = primals
    t, _ = tangents
    norm = jnp.linalg.norm(x)
    y = jnp.maximum(norm, min_norm)
    direction = jnp.where(norm > min_norm, x / jnp.where(norm > 0, norm, 1.0), 0.0)
    return y, jnp.dot(direction, t)
