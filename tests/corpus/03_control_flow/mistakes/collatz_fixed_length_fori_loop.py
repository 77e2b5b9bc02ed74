import jax.numpy as jnp
from jax import lax


def collatz_steps(n):
    # 1000 steps is "surely enough": every start still at 1 stops counting.
    def body(i, state):
        n, steps = state
        done = n == 1
        n = jnp.where(done, n, jnp.where(n % 2 == 0, n // 2, 3 * n + 1))
        return n, steps + jnp.where(done, 0, 1).astype(jnp.int32)

    _, steps = lax.fori_loop(0, 1000, body, (jnp.int32(n), jnp.int32(0)))
    return steps
