import jax
import jax.numpy as jnp


def directional_derivative(f, x, v):
    # The calculus textbook's directional derivative: along the unit vector of v.
    u = v / jnp.linalg.norm(v)
    _, tangent_out = jax.jvp(f, (x,), (u,))
    return tangent_out
