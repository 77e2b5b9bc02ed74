import jax
import jax.numpy as jnp


@jax.custom_jvp
@jax.jit
def safe_norm(x):
    return jnp.sqrt(jnp.sum(x * x))


def _tangent(t, norm, x):
    return jnp.where(norm > 0, jnp.vdot(x, t) / jnp.where(norm > 0, norm, 1.0), 0.0)


safe_norm.defjvps(_tangent)
