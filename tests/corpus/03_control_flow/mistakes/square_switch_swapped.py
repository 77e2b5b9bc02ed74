from jax import lax


def square(x, negate):
    branches = [lambda v: -(v * v), lambda v: v * v]
    return lax.switch(lax.convert_element_type(negate, int), branches, x)
