from jax import lax


def square(x, negate):
    return lax.cond(negate, lambda x: x**2, lambda x: -x**2, x)
