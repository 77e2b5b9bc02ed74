import jax.numpy as jnp
from jax import lax


def collatz_steps(n):
    def body(state):
        value, steps = state
        value = lax.cond(value % 2 == 0, lambda v: v // 2, lambda v: 3 * v + 1, value)
        return value, steps + 1

    _, steps = lax.while_loop(lambda state: state[0] != 1, body, (n, jnp.zeros_like(n)))
    return steps
