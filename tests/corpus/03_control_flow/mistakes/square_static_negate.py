from functools import partial

import jax


@partial(jax.jit, static_argnums=1)
def square(x, negate):
    if negate:
        return -x**2
    return x**2
