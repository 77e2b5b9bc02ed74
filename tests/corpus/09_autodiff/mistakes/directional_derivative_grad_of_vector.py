import jax


def directional_derivative(f, x, v):
    return jax.grad(f)(x) @ v  # f returns a vector: jax.grad raises
