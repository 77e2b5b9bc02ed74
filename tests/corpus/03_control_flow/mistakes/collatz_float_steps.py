import jax.numpy as jnp
from jax import lax


def collatz_steps(n):
    def body_fun(state):
        n, steps = state
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1.0

    _, steps = lax.while_loop(lambda s: s[0] != 1, body_fun, (jnp.int32(n), jnp.float32(0)))
    return steps
