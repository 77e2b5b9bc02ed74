import jax
import jax.numpy as jnp


def directional_derivative(f, x, v):
    _, f_jvp = jax.linearize(f, x)
    return f_jvp(v)


def vector_jacobian_product(f, x, u):
    # The gradient of the scalar u · f(x) is u @ J: reverse mode without forming J.
    return jax.grad(lambda x: jnp.dot(u, f(x)))(x)
