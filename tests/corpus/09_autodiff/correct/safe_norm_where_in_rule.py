import jax
import jax.numpy as jnp


@jax.custom_jvp
def safe_norm(x):
    return jnp.sqrt(jnp.sum(x * x))


@safe_norm.defjvp
def _safe_norm_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    norm = safe_norm(x)
    # Guard the division itself: where the norm is 0 the tangent is 0, and nothing is divided by 0.
    is_zero = norm == 0.0
    safe = jnp.where(is_zero, 1.0, norm)
    return norm, jnp.where(is_zero, 0.0, jnp.dot(x, t) / safe)
