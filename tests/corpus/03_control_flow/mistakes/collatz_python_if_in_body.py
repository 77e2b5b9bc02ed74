import jax.numpy as jnp
from jax import lax


def collatz_steps(n):
    def body_fun(state):
        n, steps = state
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        return n, steps + 1

    _, steps = lax.while_loop(lambda s: s[0] != 1, body_fun, (jnp.int32(n), jnp.int32(0)))
    return steps
