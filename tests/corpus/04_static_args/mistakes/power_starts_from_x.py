from functools import partial

import jax


@partial(jax.jit, static_argnums=1)
def power(x, n):
    result = x  # n = 0 should give ones
    for _ in range(n - 1):
        result = result * x
    return result
