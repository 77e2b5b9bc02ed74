import functools

import jax


@functools.partial(jax.jit, static_argnums=1)
def power(x, n):
    result = x
    for _ in range(n):
        result = result * x
    return result
